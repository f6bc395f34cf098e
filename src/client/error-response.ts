/**
 * Turning a non-2xx answer of the service into a ServiceError (Errors part). A body that is not a
 * conforming error object still yields a ServiceError with the HTTP status: code INTERNAL_UNCLASSIFIED_ERROR
 * (the service's own catch-all) for 5xx, typically a proxy's HTML page, and RESPONSE_MALFORMED otherwise.
 */

import { type ErrorObject, parseErrorObject } from '../contract/error-object.js';
import { parseJsonText } from '../contract/json.js';
import { ERROR_DETAIL_MAX_ITEMS, ERROR_DETAIL_MAX_LENGTH } from '../contract/limits.js';
import { isErrorCode, ServiceError } from '../errors.js';
import { parseRetryAfterSeconds } from './retry-after.js';

/** What {@link parseErrorResponse} needs to know about one answer. */
export interface ErrorResponseInput {
  status: number;
  /** The body decoded as UTF-8, or undefined when it was not valid UTF-8. */
  text: string | undefined;
  /** The Retry-After header, if any. */
  retryAfter: string | null;
  /** Method and path, for the message (never the base URL's credentials, never the key). */
  what: string;
  nowMs: number;
  /** Scrubs the API key from any text that came from outside. */
  redact: (text: string) => string;
}

/** Longest excerpt of a non-conforming body quoted in the message. */
export const ERROR_BODY_EXCERPT_LENGTH = 200;

function parseBody(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return parseJsonText(text);
  } catch {
    return undefined;
  }
}

/**
 * The error object in a body. A detail beyond the interface's limits (10 items of 1000 characters) is
 * clipped rather than costing the caller the code and category that came with it.
 */
function readErrorObject(value: unknown): ErrorObject | undefined {
  const strict = parseErrorObject(value);
  if (strict !== undefined || typeof value !== 'object' || value === null || !('error' in value))
    return strict;
  const { error, ...rest } = value as Record<string, unknown>;
  const object = parseErrorObject(rest);
  if (object === undefined) return undefined;
  if (typeof error === 'string') return { ...object, error: error.slice(0, ERROR_DETAIL_MAX_LENGTH) };
  if (Array.isArray(error) && error.every((item) => typeof item === 'string')) {
    return {
      ...object,
      error: error
        .slice(0, ERROR_DETAIL_MAX_ITEMS)
        .map((item: string) => item.slice(0, ERROR_DETAIL_MAX_LENGTH)),
    };
  }
  return object;
}

/** The ServiceError an error answer stands for. */
export function parseErrorResponse(input: ErrorResponseInput): ServiceError {
  const { status, text, what, redact } = input;
  const fallbackCode = status >= 500 ? 'INTERNAL_UNCLASSIFIED_ERROR' : 'RESPONSE_MALFORMED';
  const object = readErrorObject(parseBody(text));
  if (object !== undefined) {
    const message = redact(object.message);
    const detail =
      object.error === undefined
        ? undefined
        : typeof object.error === 'string'
          ? redact(object.error)
          : Object.freeze(object.error.map(redact));
    // A code this version does not list (a later minor version of the interface) keeps its category;
    // the code itself survives in the message.
    return new ServiceError({
      status,
      code: isErrorCode(object.code) ? object.code : fallbackCode,
      category: object.category,
      message: isErrorCode(object.code) ? message : `${redact(object.code)}: ${message}`,
      detail,
      retryAfterSeconds: parseRetryAfterSeconds(input.retryAfter, object.message, input.nowMs),
    });
  }
  const excerpt =
    text === undefined ? '(body is not UTF-8)' : redact(text.slice(0, ERROR_BODY_EXCERPT_LENGTH));
  return new ServiceError({
    status,
    code: fallbackCode,
    category: fallbackCode === 'INTERNAL_UNCLASSIFIED_ERROR' ? 'INTERNAL' : undefined,
    message: `${what} answered HTTP ${status} without a valid error object: ${excerpt}`,
    retryAfterSeconds: parseRetryAfterSeconds(input.retryAfter, undefined, input.nowMs),
  });
}

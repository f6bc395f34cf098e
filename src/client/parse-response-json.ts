/**
 * Reading a 2xx JSON answer against a contract schema; anything else is the service breaking the
 * contract, reported as ServiceError RESPONSE_MALFORMED (not retried).
 */
import type { z } from 'zod';
import { parseJsonText } from '../contract/json.js';
import { ServiceError } from '../errors.js';
import type { ServiceResponse } from './request-core.js';

/** The answer's body, parsed with parseJsonText and checked by `schema`. */
export function parseResponseJson<S extends z.ZodType>(
  response: ServiceResponse,
  schema: S,
  what: string,
): z.output<S> {
  let value: unknown;
  try {
    value = parseJsonText(response.text);
  } catch (error) {
    throw new ServiceError({
      status: response.status,
      code: 'RESPONSE_MALFORMED',
      message: `${what} answered HTTP ${response.status} with a body that is not JSON`,
      cause: error,
    });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues
    .slice(0, 10)
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
    .join('; ');
  throw new ServiceError({
    status: response.status,
    code: 'RESPONSE_MALFORMED',
    message: `${what} answered HTTP ${response.status} with JSON that breaks the contract: ${issues}`,
    cause: result.error,
  });
}

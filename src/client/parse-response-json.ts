/**
 * Reading a 2xx JSON answer against a contract schema; anything else is the service breaking the
 * contract, reported as ServiceError RESPONSE_MALFORMED (not retried).
 */
import type { z } from 'zod';
import { parseAnswer } from '../contract/answer-shape.js';
import { parseJsonText } from '../contract/json.js';
import { boundOutsideText } from '../contract/outside-text.js';
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
  // Bounded work whatever the body (contract/answer-shape.ts): no issue object per element of a huge array.
  const result = parseAnswer(schema, value);
  if (result.ok) return result.data;
  throw new ServiceError({
    status: response.status,
    code: 'RESPONSE_MALFORMED',
    message: `${what} answered HTTP ${response.status} with JSON that breaks the contract: ${boundOutsideText(result.problem, 300)}`,
  });
}

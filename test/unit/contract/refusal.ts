/** Runs a parser expected to refuse its input and returns the ValidationError it threw. */
import { ValidationError } from '../../../src/errors.js';

export function refusal(parse: (value: unknown) => unknown, value: unknown): ValidationError {
  try {
    parse(value);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`expected a ValidationError for ${String(value)}`);
}

/**
 * Error answers of the simulator: the interface's error object (Errors part) with the status its code
 * goes with, from the contract's one table.
 */
import type { Response } from 'express';
import { httpStatusOf } from '../contract/error-codes.js';
import { makeErrorObject } from '../contract/error-object.js';
import type { ErrorCode } from '../errors.js';

/** Answers `code` with its HTTP status and an error object carrying `message` and `detail`. */
export function sendError(
  res: Response,
  code: ErrorCode,
  message: string,
  detail?: string | readonly string[],
): void {
  res.status(httpStatusOf(code)).json(makeErrorObject(code, message, detail));
}

/** Answers 200 with a stored job's exact text. */
export function sendJobText(res: Response, text: string): void {
  res.status(200).type('application/json').send(text);
}

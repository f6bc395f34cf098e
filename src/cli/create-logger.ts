/**
 * The CLI's pino logger: JSON lines on stderr (stdout carries only a command's own output), with every
 * secret-bearing field redacted.
 */
import { type Logger, pino } from 'pino';
import type { LogLevel } from '../config/load-config.js';

/** Paths pino blanks out wherever they appear in a log object. */
export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'adminToken',
  '*.adminToken',
  'token',
  '*.token',
  'signature',
  '*.signature',
  'authorization',
  '*.authorization',
  'headers["x-api-key"]',
  'headers["x-webhook-signature"]',
  'headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers["x-webhook-signature"]',
  '*.headers.authorization',
];

/** A logger writing to file descriptor 2 (or `destination`, for tests collecting lines). */
export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { name: 'hooksync' } },
    destination ?? pino.destination({ dest: 2, sync: false }),
  );
}

/**
 * The one place that decides whether a database failure is transient (a retry could succeed: the
 * receiver answers a status the sender retries) or permanent.
 */
import { StorageError } from '../errors.js';

/** SQLite result codes (better-sqlite3's `code`, extended codes included) worth a retry. */
const SQLITE_TRANSIENT = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|PROTOCOL|INTERRUPT|CANTOPEN)/;

/**
 * Postgres SQLSTATEs worth a retry: connection exceptions (08), serialization failure and deadlock (40001,
 * 40P01), insufficient resources (53), lock not available (55P03), operator intervention (57: shutdown,
 * cannot connect now, query canceled), system errors (58).
 */
const PG_TRANSIENT = /^(08...|40001|40P01|53...|55P03|57...|58...)$/;

/** Node socket errors: the server went away or cannot be reached right now. */
const NETWORK_TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** Errors node-postgres throws without a code when a connection drops or cannot be had in time. */
const PG_CONNECTION_MESSAGE =
  /connection terminated|terminating connection|timeout exceeded when trying to connect|not queryable|connection error/i;

const MAX_MESSAGE_LENGTH = 300;

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
}

/** True when `error` (from better-sqlite3, node-postgres or a socket) could succeed on retry. */
export function isTransientStorageFailure(error: unknown): boolean {
  if (error instanceof StorageError) return error.transient;
  const code = codeOf(error);
  if (code !== undefined) {
    if (SQLITE_TRANSIENT.test(code) || PG_TRANSIENT.test(code) || NETWORK_TRANSIENT.has(code)) return true;
    if (code.startsWith('SQLITE_') || /^[0-9A-Z]{5}$/.test(code)) return false;
  }
  return error instanceof Error && PG_CONNECTION_MESSAGE.test(error.message);
}

/** Wraps any database failure as a StorageError (returned as is when it already is one). */
export function classifyStorageError(error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const transient = isTransientStorageFailure(error);
  const code = codeOf(error);
  const prefix = transient ? 'database temporarily unavailable' : 'database operation failed';
  return new StorageError(`${prefix}${code ? ` (${code})` : ''}: ${messageOf(error)}`, {
    cause: error,
    transient,
  });
}

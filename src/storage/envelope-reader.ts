/**
 * Reads stored envelopes (and person texts) back, one job at a time, while an export streams its rows: the
 * fields an export reads from the envelope (experiences, most company fields) or from person_texts (about)
 * come from here. Rows arrive grouped by
 * job, so the last envelope read is kept for the next row.
 *
 * On SQLite the export's query holds the one connection while it streams, and Kysely would wait for it
 * forever: the reader uses the better-sqlite3 handle behind it instead (a read while a statement iterates
 * is allowed there), which openDatabase registers here.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, SqliteAdapter } from 'kysely';
import { parseJsonText, withoutByteOrderMark } from '../contract/json.js';
import type { Database } from './database.js';
import { decodeEnvelope } from './envelope-codec.js';
import { decodePersonTexts } from './person-texts.js';

const sqliteHandles = new WeakMap<Kysely<Database>, BetterSqlite3.Database>();

/** Records the better-sqlite3 handle behind `db` (openDatabase does, for every SQLite database). */
export function registerSqliteHandle(db: Kysely<Database>, handle: BetterSqlite3.Database): void {
  sqliteHandles.set(db, handle);
}

/** Reads one column of one job by job_id, as stored; undefined when there is no such row. */
function bytesReader(
  db: Kysely<Database>,
  table: 'jobs' | 'person_texts',
  column: 'envelope_z' | 'abouts_z',
): (jobId: string) => Uint8Array | undefined | Promise<Uint8Array | undefined> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const handle = sqliteHandles.get(db);
    if (handle === undefined) {
      throw new TypeError(
        'exporting fields read from the envelope needs a SQLite database opened by openDatabase',
      );
    }
    // Fixed names from the union above, never input.
    const statement = handle.prepare(`SELECT ${column} FROM ${table} WHERE job_id = ?`).pluck();
    // Synchronous: no promise per row while a large export streams.
    return (jobId) => statement.get(jobId) as Uint8Array | undefined;
  }
  return async (jobId) => {
    const row = await db
      .selectFrom(table as 'jobs')
      .select(`${column as 'envelope_z'}`)
      .where('job_id', '=', jobId)
      .executeTakeFirst();
    return (row as Readonly<Record<string, Uint8Array>> | undefined)?.[column];
  };
}

/** A value now, or later. */
export type MaybePromise<T> = T | Promise<T>;

/** Keeps the last job's value (rows arrive grouped by job); stays synchronous when `read` is. */
function lastJobCache<T>(
  read: (jobId: string) => MaybePromise<Uint8Array | undefined>,
  convert: (stored: Uint8Array | undefined) => T,
): (jobId: string) => MaybePromise<T> {
  let lastJobId: string | undefined;
  let last: T;
  return (jobId) => {
    if (jobId === lastJobId) return last;
    const stored = read(jobId);
    const keep = (value: Uint8Array | undefined): T => {
      last = convert(value);
      lastJobId = jobId;
      return last;
    };
    return stored instanceof Promise ? stored.then(keep) : keep(stored);
  };
}

/** The `about` texts of a job's persons, by position (undefined when the job has none). */
export function createPersonTextsReader(
  db: Kysely<Database>,
): (jobId: string) => MaybePromise<readonly (string | null)[] | undefined> {
  return lastJobCache(bytesReader(db, 'person_texts', 'abouts_z'), (stored) =>
    stored === undefined ? undefined : decodePersonTexts(stored),
  );
}

/** Gives a job's stored envelope, parsed (undefined when the job is gone or its text is not JSON). */
export type EnvelopeReader = (jobId: string) => MaybePromise<unknown>;

function parsed(stored: Uint8Array | undefined): unknown {
  if (stored === undefined) return undefined;
  try {
    return parseJsonText(withoutByteOrderMark(decodeEnvelope(stored)));
  } catch {
    return undefined;
  }
}

/**
 * A reader for `db`. Throws TypeError for a SQLite Kysely instance that openDatabase did not open (its
 * connection cannot be shared with a streaming export).
 */
export function createEnvelopeReader(db: Kysely<Database>): EnvelopeReader {
  return lastJobCache(bytesReader(db, 'jobs', 'envelope_z'), parsed);
}

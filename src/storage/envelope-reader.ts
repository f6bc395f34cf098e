/**
 * Reads stored envelopes back, parsed, one job at a time, while an export streams its rows: the fields an
 * export reads from the envelope (experiences, most company fields) come from here. Rows arrive grouped by
 * job, so the last envelope read is kept for the next row.
 *
 * On SQLite the export's query holds the one connection while it streams, and Kysely would wait for it
 * forever: the reader uses the better-sqlite3 handle behind it instead (a read while a statement iterates
 * is allowed there), which openDatabase registers here.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, SqliteAdapter } from 'kysely';
import { parseJsonText } from '../contract/json.js';
import type { Database } from './database.js';
import { decodeEnvelope } from './envelope-codec.js';

const sqliteHandles = new WeakMap<Kysely<Database>, BetterSqlite3.Database>();

/** Records the better-sqlite3 handle behind `db` (openDatabase does, for every SQLite database). */
export function registerSqliteHandle(db: Kysely<Database>, handle: BetterSqlite3.Database): void {
  sqliteHandles.set(db, handle);
}

/** Gives a job's stored envelope, parsed (undefined when the job is gone or its text is not JSON). */
export type EnvelopeReader = (jobId: string) => Promise<unknown>;

function parsed(stored: Uint8Array | undefined): unknown {
  if (stored === undefined) return undefined;
  try {
    return parseJsonText(decodeEnvelope(stored));
  } catch {
    return undefined;
  }
}

/**
 * A reader for `db`. Throws TypeError for a SQLite Kysely instance that openDatabase did not open (its
 * connection cannot be shared with a streaming export).
 */
export function createEnvelopeReader(db: Kysely<Database>): EnvelopeReader {
  let read: (jobId: string) => Promise<Uint8Array | undefined>;
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const handle = sqliteHandles.get(db);
    if (handle === undefined) {
      throw new TypeError(
        'exporting fields read from the envelope needs a SQLite database opened by openDatabase',
      );
    }
    const statement = handle.prepare('SELECT envelope_z FROM jobs WHERE job_id = ?').pluck();
    read = async (jobId) => statement.get(jobId) as Uint8Array | undefined;
  } else {
    read = async (jobId) =>
      (await db.selectFrom('jobs').select('envelope_z').where('job_id', '=', jobId).executeTakeFirst())
        ?.envelope_z;
  }
  let lastJobId: string | undefined;
  let last: unknown;
  return async (jobId) => {
    if (jobId !== lastJobId) {
      last = parsed(await read(jobId));
      lastJobId = jobId;
    }
    return last;
  };
}

/**
 * Adds entries to the ledger of expected jobs. An entry that exists is left as it is (a job already
 * received stays received), by the table's unique key, never by a read first. A list is recorded whole
 * or not at all: more than one statement's worth runs in one transaction.
 */
import type { Kysely } from 'kysely';
import type { JobKind } from '../../contract/enums.js';
import type { Database } from '../database.js';
import type { ExpectedJobOrigin } from './ledger-tables.js';

/** One job we expect. */
export interface ExpectedJob {
  job_id: string;
  kind: JobKind;
}

/** Rows per INSERT: far below both dialects' bound-parameter limits (9 columns × 500). */
const CHUNK_SIZE = 500;

async function insertChunks(
  db: Kysely<Database>,
  jobs: readonly ExpectedJob[],
  origin: ExpectedJobOrigin,
  at: string,
): Promise<number> {
  let added = 0;
  for (let i = 0; i < jobs.length; i += CHUNK_SIZE) {
    const rows = jobs.slice(i, i + CHUNK_SIZE).map((job) => ({
      job_id: job.job_id,
      kind: job.kind,
      state: 'pending' as const,
      origin,
      attempts: 0,
      next_attempt_at: null,
      last_error: null,
      created_at: at,
      updated_at: at,
    }));
    const result = await db
      .insertInto('expected_jobs')
      .values(rows)
      .onConflict((oc) => oc.column('job_id').doNothing())
      .executeTakeFirst();
    added += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return added;
}

/** Records `jobs` as pending; returns how many were new. */
export async function recordExpectedJobs(
  db: Kysely<Database>,
  jobs: readonly ExpectedJob[],
  origin: ExpectedJobOrigin,
  now: Date,
): Promise<number> {
  if (jobs.length === 0) return 0;
  const at = now.toISOString();
  if (jobs.length <= CHUNK_SIZE || db.isTransaction) return insertChunks(db, jobs, origin, at);
  return db.transaction().execute((trx) => insertChunks(trx, jobs, origin, at));
}

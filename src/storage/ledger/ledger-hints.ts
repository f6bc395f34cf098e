/**
 * What the receiver may do to the ledger of expected jobs (issue 19: only authenticated facts change
 * state): a refused callback whose token verified may mark an entry that already exists, so that the next
 * reconcile fetches it at once; it never creates one. Also the two reads the unsigned-fetch budget needs.
 */
import type { Kysely } from 'kysely';
import { TERMINAL_STATUSES } from '../../contract/enums.js';
import type { Database } from '../database.js';

/**
 * Makes a pending entry for `jobId` due now (its backoff is lifted); returns false when the ledger has no
 * pending entry for it. Never inserts.
 */
export async function markHintedEntry(db: Kysely<Database>, jobId: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const result = await db
    .updateTable('expected_jobs')
    .set({ next_attempt_at: at, updated_at: at })
    .where('job_id', '=', jobId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** True when the ledger expects `jobId`: a pending entry (tracked, launched, admin-added or hinted). */
export async function isExpectedJob(db: Kysely<Database>, jobId: string): Promise<boolean> {
  const row = await db
    .selectFrom('expected_jobs')
    .select('job_id')
    .where('job_id', '=', jobId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return row !== undefined;
}

/** The stored job's status and payload hash, without its envelope; undefined when not stored. */
export async function storedJobDigest(
  db: Kysely<Database>,
  jobId: string,
): Promise<{ status: string; payloadHash: string; finished: boolean } | undefined> {
  const row = await db
    .selectFrom('jobs')
    .select(['status', 'payload_hash'])
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    status: row.status,
    payloadHash: row.payload_hash,
    finished: (TERMINAL_STATUSES as readonly string[]).includes(row.status),
  };
}

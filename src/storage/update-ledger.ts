/**
 * The job store's side of the ledger (expected_jobs): receipt closes an entry, a RUNNING job opens one.
 * Both are conditional writes (UPDATE … WHERE state <> 'received', INSERT … ON CONFLICT DO NOTHING).
 */
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { chunkForParameters } from './insert-rows.js';
import type { PreparedJob } from './prepare-job.js';

const LEDGER_COLUMNS = 9;

/**
 * Keeps the ledger of expected jobs in step with what a round stored: finished copies (new or duplicate)
 * close their entry; a new RUNNING job gets a pending 'hint' entry unless one exists.
 */
export async function updateLedger(
  trx: Kysely<Database>,
  finishedIds: readonly string[],
  newRunning: readonly PreparedJob[],
  nowIso: string,
): Promise<void> {
  // A duplicate finished copy counts too: reconcile re-fetching a job stored earlier must close its entry.
  for (const ids of chunkForParameters(finishedIds, 1)) {
    await trx
      .updateTable('expected_jobs')
      .set({ state: 'received', updated_at: nowIso })
      .where('job_id', 'in', ids)
      .where('state', '<>', 'received')
      .execute();
  }
  // A RUNNING copy promises a final one: make sure reconcile fetches it if its callback never comes.
  for (const chunk of chunkForParameters(newRunning, LEDGER_COLUMNS)) {
    await trx
      .insertInto('expected_jobs')
      .values(
        chunk.map((job) => ({
          job_id: job.jobId,
          kind: job.kind,
          state: 'pending' as const,
          origin: 'hint' as const,
          attempts: 0,
          next_attempt_at: nowIso,
          last_error: null,
          created_at: nowIso,
          updated_at: nowIso,
        })),
      )
      .onConflict((oc) => oc.column('job_id').doNothing())
      .execute();
  }
}

/**
 * The job store's side of the ledger (expected_jobs): receipt closes an entry, a RUNNING job opens one.
 * Both are conditional writes (UPDATE … WHERE state <> 'received', INSERT … ON CONFLICT DO NOTHING).
 */
import type { Kysely } from 'kysely';
import { chunkForParameters } from '../chunk-for-parameters.js';
import type { Database } from '../database.js';
import type { PreparedJob } from '../job-store/prepare-job.js';
import { CHUNKED_ROW_RUNNER, type RowRunner } from '../job-store/row-runner.js';

/**
 * Keeps the ledger of expected jobs in step with what a round stored: finished copies (new or duplicate)
 * close their entry; a new RUNNING job gets a pending 'hint' entry unless one exists.
 */
export async function updateLedger(
  trx: Kysely<Database>,
  finishedIds: readonly string[],
  newRunning: readonly PreparedJob[],
  nowIso: string,
  runner: RowRunner = CHUNKED_ROW_RUNNER,
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
  const entries = newRunning.map((job) => ({
    job_id: job.jobId,
    kind: job.kind,
    state: 'pending' as const,
    origin: 'hint' as const,
    attempts: 0,
    next_attempt_at: nowIso,
    last_error: null,
    created_at: nowIso,
    updated_at: nowIso,
  }));
  await runner.run(trx, entries, (t, chunk) =>
    t
      .insertInto('expected_jobs')
      .values(chunk)
      .onConflict((oc) => oc.column('job_id').doNothing()),
  );
}

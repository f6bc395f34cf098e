/**
 * The job store's side of the ledger (expected_jobs): receipt closes an entry, a RUNNING job opens one.
 * Both are conditional writes (UPDATE … WHERE state <> 'received', INSERT … ON CONFLICT DO NOTHING).
 */
import type { Insertable, Kysely } from 'kysely';
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
  await runner.run(
    trx,
    finishedIds.map((id) => ({ job_id: id, updated_at: nowIso })),
    closeEntries,
  );
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
  await runner.run(trx, entries, openEntries);
}

// Module functions, the same on every call, so that the row runner compiles each statement once.

/** Closes the entries of `rows` (one job_id each; every row's updated_at is the same batch time). */
function closeEntries(t: Kysely<Database>, rows: readonly { job_id: string; updated_at: string }[]) {
  return t
    .updateTable('expected_jobs')
    .set({ state: 'received', updated_at: rows[0]!.updated_at })
    .where(
      'job_id',
      'in',
      rows.map((row) => row.job_id),
    )
    .where('state', '<>', 'received');
}

function openEntries(t: Kysely<Database>, rows: readonly Insertable<Database['expected_jobs']>[]) {
  return t
    .insertInto('expected_jobs')
    .values(rows)
    .onConflict((oc) => oc.column('job_id').doNothing());
}

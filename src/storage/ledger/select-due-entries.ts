/**
 * Which ledger entries a reconcile run works on: pending, older than the grace period, past any backoff.
 * Entries whose job is already stored finished are closed by a join, never fetched.
 */
import type { Kysely } from 'kysely';
import type { JobKind } from '../../contract/enums.js';
import { TERMINAL_STATUSES } from '../../contract/enums.js';
import type { Database } from '../database.js';
import type { ExpectedJobRow } from './list-expected-jobs.js';

/**
 * Kinds with a finder (Job Change Finder, Search Contact Finder). `unknown` (a hint whose kind could not
 * be read) is tried on both. Company Reveal has none: "Company Reveal Finder ...: path and payload: not shown".
 */
export const FETCHABLE_KINDS: readonly JobKind[] = Object.freeze(['job_change', 'search_contact', 'unknown']);

/** The window a run looks at. */
export interface DueWindow {
  /** Only entries created at or before this instant (now minus the grace period), ISO UTC. */
  readonly createdBeforeIso: string;
  /** Entries whose backoff ends after this instant wait, ISO UTC. */
  readonly nowIso: string;
}

/**
 * Marks received every pending entry whose job is already stored with a finished status (it came by
 * webhook or launch while the entry was pending, or before it was tracked). Returns how many.
 */
export async function closeStoredEntries(db: Kysely<Database>, nowIso: string): Promise<number> {
  const result = await db
    .updateTable('expected_jobs')
    .set({ state: 'received', next_attempt_at: null, updated_at: nowIso })
    .where('state', '=', 'pending')
    .where('job_id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('jobs.job_id')
        .where('jobs.status', 'in', [...TERMINAL_STATUSES]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

function duePending(db: Kysely<Database>, window: DueWindow) {
  return db
    .selectFrom('expected_jobs')
    .where('expected_jobs.state', '=', 'pending')
    .where('expected_jobs.created_at', '<=', window.createdBeforeIso)
    .where((eb) =>
      eb.or([
        eb('expected_jobs.next_attempt_at', 'is', null),
        eb('expected_jobs.next_attempt_at', '<=', window.nowIso),
      ]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('jobs')
            .select('jobs.job_id')
            .whereRef('jobs.job_id', '=', 'expected_jobs.job_id')
            .where('jobs.status', 'in', [...TERMINAL_STATUSES]),
        ),
      ),
    );
}

/** Due entries that have a finder, oldest first, at most `limit`. */
export async function selectDueEntries(
  db: Kysely<Database>,
  window: DueWindow,
  limit?: number,
): Promise<ExpectedJobRow[]> {
  let query = duePending(db, window)
    .selectAll('expected_jobs')
    .where('expected_jobs.kind', 'in', [...FETCHABLE_KINDS])
    .orderBy('expected_jobs.created_at')
    .orderBy('expected_jobs.job_id');
  if (limit !== undefined) query = query.limit(limit);
  return query.execute();
}

/** Due entries no finder can fetch (Company Reveal): left pending for their callback, counted. */
export async function countNotFetchable(db: Kysely<Database>, window: DueWindow): Promise<number> {
  const row = await duePending(db, window)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('expected_jobs.kind', 'not in', [...FETCHABLE_KINDS])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The entry as it is now, and whether its job is stored finished (read just before fetching it). */
export async function readEntryState(
  db: Kysely<Database>,
  jobId: string,
): Promise<{ state: string; storedFinished: boolean } | undefined> {
  const row = await db
    .selectFrom('expected_jobs')
    .leftJoin('jobs', 'jobs.job_id', 'expected_jobs.job_id')
    .select(['expected_jobs.state as state', 'jobs.status as status'])
    .where('expected_jobs.job_id', '=', jobId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    state: row.state,
    storedFinished: (TERMINAL_STATUSES as readonly (string | null)[]).includes(row.status),
  };
}

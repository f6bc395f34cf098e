/**
 * Reading the ledger: entries by state (for GET /admin/expected-jobs) and the count in each state.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../database.js';
import type { ExpectedJobState, ExpectedJobsTable } from './ledger-tables.js';

/** Every ledger state. */
export const EXPECTED_JOB_STATES: readonly ExpectedJobState[] = Object.freeze([
  'pending',
  'received',
  'not_found',
  'failed',
]);

/** Entries returned when no limit is given, and the most one call returns. */
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

/** One ledger entry as stored. */
export type ExpectedJobRow = Selectable<ExpectedJobsTable>;

/** Filters of {@link listExpectedJobs}. */
export interface ListExpectedJobsOptions {
  /** Only this state (default: every state). */
  state?: ExpectedJobState;
  /** At most this many (default {@link DEFAULT_LIST_LIMIT}, at most {@link MAX_LIST_LIMIT}). */
  limit?: number;
}

/** True when `value` is a ledger state. */
export function isExpectedJobState(value: unknown): value is ExpectedJobState {
  return typeof value === 'string' && (EXPECTED_JOB_STATES as readonly string[]).includes(value);
}

/** Entries, oldest first. */
export async function listExpectedJobs(
  db: Kysely<Database>,
  options: ListExpectedJobsOptions = {},
): Promise<ExpectedJobRow[]> {
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new TypeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  if (options.state !== undefined && !isExpectedJobState(options.state)) {
    throw new TypeError(`state must be one of ${EXPECTED_JOB_STATES.join(', ')}`);
  }
  let query = db.selectFrom('expected_jobs').selectAll();
  if (options.state !== undefined) query = query.where('state', '=', options.state);
  return query.orderBy('created_at').orderBy('job_id').limit(limit).execute();
}

/** How many entries are in each state (every state present, 0 when none). */
export async function countExpectedJobs(db: Kysely<Database>): Promise<Record<ExpectedJobState, number>> {
  const rows = await db
    .selectFrom('expected_jobs')
    .select((eb) => ['state', eb.fn.countAll().as('n')])
    .groupBy('state')
    .execute();
  const counts: Record<ExpectedJobState, number> = { pending: 0, received: 0, not_found: 0, failed: 0 };
  for (const row of rows) if (isExpectedJobState(row.state)) counts[row.state] = Number(row.n);
  return counts;
}

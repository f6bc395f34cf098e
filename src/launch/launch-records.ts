/**
 * The record of a bulk launch, one row of `launch_rows` per request: claimed ('sending') in its own
 * committed statement before the request goes out, and marked launched, failed or uncertain after. A row
 * is claimed by a single conditional upsert (never read-then-write), so that it is launched at most once
 * per run, and not again by a later run unless asked (--again). A row that may have bought a job without
 * its answer being recorded (`sending` by a run that died, `uncertain`) is sent again only when asked
 * (--resend-unknown): the service gives the job_id only in its answer, so no finder can settle it.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../storage/database.js';
import type { LaunchRowState, LaunchRowsTable } from '../storage/tables/launch-tables.js';

/** What a claim found. */
export type ClaimResult =
  | { readonly claimed: true; readonly priorState: LaunchRowState | undefined }
  | {
      readonly claimed: false;
      readonly existing: Pick<LaunchRowsTable, 'state' | 'job_id' | 'result_count' | 'run_id'>;
    };

/** The row to claim. */
export interface ClaimInput {
  readonly rowKey: string;
  readonly operation: string;
  readonly requestText: string;
  readonly runId: string;
  readonly source: string;
  readonly line: number;
  /** Claim rows that an earlier run already launched, too. */
  readonly again: boolean;
  /**
   * Claim rows an earlier run left `sending` or `uncertain` (the service may have the job): by default
   * they are left alone and reported, never paid for again silently.
   */
  readonly resendUnknown?: boolean;
  readonly now: Date;
}

/** The outcome recorded once the request is over. */
export interface LaunchOutcome {
  readonly state: Exclude<LaunchRowState, 'sending'>;
  readonly jobId?: string | undefined;
  readonly status?: string | undefined;
  readonly usd?: number | undefined;
  readonly resultCount?: number | undefined;
  readonly error?: string | undefined;
}

/**
 * Claims a row for this run: inserts it as 'sending', or takes over a row of an earlier run that is not
 * launched (or any, with `again`). Resolves unclaimed with what is recorded when the row is not to be sent.
 */
export async function claimLaunchRow(
  db: Kysely<Database> | Transaction<Database>,
  input: ClaimInput,
): Promise<ClaimResult> {
  const at = input.now.toISOString();
  const claimed = await db
    .insertInto('launch_rows')
    .values({
      row_key: input.rowKey,
      operation: input.operation,
      request: input.requestText,
      state: 'sending',
      prior_state: null,
      run_id: input.runId,
      attempts: 1,
      source: input.source,
      line: input.line,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => {
      const update = oc.column('row_key').doUpdateSet({
        state: 'sending',
        prior_state: sql<string>`launch_rows.state`,
        run_id: input.runId,
        attempts: sql<number>`launch_rows.attempts + 1`,
        request: input.requestText,
        source: input.source,
        line: input.line,
        error: null,
        updated_at: at,
      });
      const ofAnotherRun = update.where('launch_rows.run_id', '<>', input.runId);
      if (input.again) return ofAnotherRun;
      return input.resendUnknown
        ? ofAnotherRun.where('launch_rows.state', '<>', 'launched')
        : ofAnotherRun.where('launch_rows.state', '=', 'failed');
    })
    .returning(['prior_state'])
    .executeTakeFirst();
  if (claimed !== undefined) {
    return { claimed: true, priorState: (claimed.prior_state ?? undefined) as LaunchRowState | undefined };
  }
  const existing = await db
    .selectFrom('launch_rows')
    .select(['state', 'job_id', 'result_count', 'run_id'])
    .where('row_key', '=', input.rowKey)
    .executeTakeFirstOrThrow();
  return { claimed: false, existing };
}

/** Why a row left `sending` by a run that ended is now `uncertain`. */
export const DIED_IN_FLIGHT =
  'the run that sent it ended before its answer was recorded: the service may have the job (its job_id is unknown)';

/**
 * Marks `uncertain` a row that the run `runId` left `sending` (it died with the request in flight); a
 * conditional update, so a row that run has since recorded is left as it is.
 */
export async function markDiedInFlight(
  db: Kysely<Database> | Transaction<Database>,
  rowKey: string,
  runId: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('launch_rows')
    .set({ state: 'uncertain', error: DIED_IN_FLIGHT, updated_at: now.toISOString() })
    .where('row_key', '=', rowKey)
    .where('run_id', '=', runId)
    .where('state', '=', 'sending')
    .execute();
}

/** Records how a claimed row's request ended. */
export async function recordLaunchOutcome(
  db: Kysely<Database> | Transaction<Database>,
  rowKey: string,
  outcome: LaunchOutcome,
  now: Date,
): Promise<void> {
  await db
    .updateTable('launch_rows')
    .set({
      state: outcome.state,
      job_id: outcome.jobId ?? null,
      status: outcome.status ?? null,
      usd: outcome.usd === undefined ? null : String(outcome.usd),
      result_count: outcome.resultCount ?? null,
      error: outcome.error === undefined ? null : outcome.error.slice(0, 1000),
      updated_at: now.toISOString(),
    })
    .where('row_key', '=', rowKey)
    .execute();
}

/** Which of `rowKeys` are recorded as launched (for a dry run's estimate). */
export async function countLaunched(db: Kysely<Database>, rowKeys: readonly string[]): Promise<number> {
  if (rowKeys.length === 0) return 0;
  const row = await db
    .selectFrom('launch_rows')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('row_key', 'in', rowKeys)
    .where('state', '=', 'launched')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

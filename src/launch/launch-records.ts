/**
 * The record of a bulk launch, one row of `launch_rows` per request: claimed ('sending') in its own
 * committed statement before the request goes out, and marked launched, failed or uncertain after. A row
 * is claimed by a single conditional upsert (never read-then-write), so that it is launched at most once
 * per run, and not again by a later run unless asked (--again).
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
  /** Claim rows that an earlier run launched, too. */
  readonly again: boolean;
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
      return input.again
        ? update.where('launch_rows.run_id', '<>', input.runId)
        : update.where('launch_rows.run_id', '<>', input.runId).where('launch_rows.state', '<>', 'launched');
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

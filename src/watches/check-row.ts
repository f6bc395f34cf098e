/**
 * One check of a watched row: the request launched (stored like any launch: ledger, job store), the answer
 * priced against the cycle's budget, and the check recorded with what it found (record-check.ts). A 402
 * or a refused key stops the whole cycle; any other failure concerns this row only.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { isTerminalStatus } from '../contract/enums.js';
import { StorageError } from '../errors.js';
import type { Launcher, LaunchResult } from '../launch/create-launcher.js';
import { settleReservation, totalUsdOf } from '../launch/launch-budget.js';
import { launchRequest, stoppingReasonOf } from '../launch/launch-call.js';
import type { Reservation } from '../launch/spend-budget.js';
import type { Database } from '../storage/database.js';
import type { CycleBudget } from './cycle-budget.js';
import type { WatchDefinition } from './load-watches.js';
import { observeAnswer } from './observe-answer.js';
import { addCycleSpend, recordCheck } from './record-check.js';
import { logChanges } from './settle-pending.js';
import type { WatchedRow } from './watched-rows.js';

/** A row of the source that was built into a request. */
export type BuiltRow = Extract<WatchedRow, { key: string }>;

/** What a check needs from its cycle. */
export interface RowCheckContext {
  readonly watch: WatchDefinition;
  readonly cycle: number;
  readonly db: Kysely<Database>;
  readonly launcher: Launcher;
  readonly logger: Logger;
  readonly now: () => number;
  readonly budget: CycleBudget | undefined;
  /** Stops the cycle for what concerns every row: the account out of quota, the key refused. */
  stop(reason: 'quota' | 'auth', message: string): void;
  /** An answer's cost, in millionths of a dollar, once known. */
  spent(micros: number): void;
  /** A RUNNING answer was recorded: its job is pending. */
  pending(): void;
  /** Changes were recorded: plays may have started (the cycle carries them out soon). */
  played?(): void;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Checks `row` under `reservation` (if the cycle has a budget); throws only for a broken database. */
export async function checkRow(
  ctx: RowCheckContext,
  row: BuiltRow,
  reservation: Reservation | undefined,
): Promise<void> {
  const { watch, db } = ctx;
  const nowIso = (): string => new Date(ctx.now()).toISOString();
  const customFields = (row.request.custom_fields ?? {}) as Record<string, unknown>;
  const base = { watch: watch.name, cycle: ctx.cycle, rowKey: row.key, customFields };
  let result: LaunchResult;
  try {
    result = await launchRequest(ctx.launcher, watch.operation, row.request);
  } catch (error) {
    reservation?.release();
    if (error instanceof StorageError) throw error;
    const reason = stoppingReasonOf(error);
    const code = (error as { code?: string }).code ?? 'error';
    if (reason === 'quota') {
      ctx.stop(
        'quota',
        `watch "${watch.name}": the account is out of quota (${code}); paused until the next cycle`,
      );
      return;
    }
    if (reason === 'auth') {
      ctx.stop(
        'auth',
        `watch "${watch.name}": the service refused the key in HOOKSYNC_API_KEY (${code}); paused until the next cycle`,
      );
      return;
    }
    // This row only: it counts as checked, and what was known of it stays known.
    ctx.logger.warn(
      { watch: watch.name, line: row.line, err: describe(error) },
      'watch check failed; the row is checked again next cycle',
    );
    const failed = { ...base, jobId: undefined, pending: false, usdMicros: 0, nowIso: nowIso() };
    await recordCheck(db, failed, () => ({ state: undefined, baseline: false, changes: [] }));
    return;
  }
  const job = result.response.job;
  const total = totalUsdOf(job);
  const costMicros = typeof total === 'number' ? Math.round(total * 1e6) : 0;
  // RUNNING: what the job finds and costs is recorded once its finished copy is stored (settle-pending.ts).
  const pending = !isTerminalStatus(result.status);
  if (reservation !== undefined) settleReservation(reservation, result, watch.operation.name, ctx.budget);
  ctx.spent(costMicros);
  const outcome = await recordCheck(
    db,
    { ...base, jobId: result.job_id, pending, usdMicros: costMicros, nowIso: nowIso(), plays: watch.plays },
    (previous) =>
      observeAnswer({
        operation: watch.operation.name === 'search' ? 'search' : 'job-change',
        previous,
        job,
        request: row.request,
        reportBaseline: watch.reportBaseline,
      }),
  );
  if (!outcome.recorded) {
    await addCycleSpend(db, watch.name, ctx.cycle, costMicros, nowIso());
    return;
  }
  if (pending) ctx.pending();
  logChanges(ctx.logger, watch.name, outcome.changes);
  if (outcome.changes.length > 0) ctx.played?.();
}

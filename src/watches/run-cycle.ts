/**
 * One cycle of a watch: every valid row of its source checked once, spread evenly over what is left of the
 * period (or at once, in the foreground), through the launcher and so through the client's pacer, which
 * keeps the account's rate whoever else launches. The source is read again after each pass, so that rows
 * added meanwhile are checked in the running cycle and rows removed are not. A row counts as checked once
 * its answer is recorded (watch-store.ts); a cycle taken up again after a crash checks only the rows not
 * yet recorded: at most the few that were in flight are sent twice.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { StorageError } from '../errors.js';
import type { Launcher } from '../launch/create-launcher.js';
import { personsOf, totalUsdOf, unitsOf } from '../launch/launch-budget.js';
import { launchRequest, stoppingReasonOf } from '../launch/launch-call.js';
import { type Reservation, SpendBudget } from '../launch/spend-budget.js';
import type { Database } from '../storage/database.js';
import type { WatchDefinition } from './load-watches.js';
import { observeAnswer } from './observe-answer.js';
import { WatchSourceError } from './sources/crm-source.js';
import type { WatchClock } from './watch-clock.js';
import { planForCycle } from './watch-plan.js';
import {
  addCycleSpend,
  finishCycle,
  keysCheckedIn,
  latestCycle,
  noteOverrun,
  recordCheck,
  setCycleRows,
  type WatchCycle,
} from './watch-store.js';
import {
  batches,
  countSource,
  type SourceCount,
  sourceName,
  type WatchedRow,
  watchedRows,
} from './watched-rows.js';

/** Checks in flight at once for one watch: enough to keep the pacer busy at the full rate. */
export const DEFAULT_WATCH_CONCURRENCY = 4;
/** The account's rate when nothing else is known (interface, Limits): 50 requests per 60 s. */
export const DEFAULT_WATCH_RATE = Object.freeze({ requests: 50, perMs: 60_000 });

/** What a cycle needs. */
export interface CycleDeps {
  readonly db: Kysely<Database>;
  readonly launcher: Launcher;
  readonly logger: Logger;
  readonly clock: WatchClock;
  /** Where callbacks go (HOOKSYNC_PUBLIC_URL + /webhooks), if anywhere. */
  readonly webhookUrl: string | undefined;
  readonly concurrency?: number | undefined;
  /** The rate the cycle's length is judged against (the pacer enforces it). */
  readonly rate?: { readonly requests: number; readonly perMs: number } | undefined;
}

/** Why a cycle stopped before its rows were all checked. */
export type CycleStop = 'quota' | 'max_usd' | 'auth' | 'source' | 'interrupted';

/** Progress within a pass. */
export interface CycleProgress {
  readonly watch: string;
  readonly done: number;
  readonly total: number;
  readonly usd: number;
}

/** How to run the cycle. */
export interface CycleOptions {
  /** Spread the checks over what is left of the period (serve); false: as fast as the rate allows. */
  readonly spread: boolean;
  /** Stops starting checks (serve closing, the lease lost); the cycle is taken up again later. */
  readonly signal: AbortSignal;
  readonly onProgress?: ((progress: CycleProgress) => void) | undefined;
}

/** What a cycle came to (its counts include what earlier runs of the same cycle did). */
export interface CycleSummary {
  readonly watch: string;
  readonly cycle: number;
  readonly rows: number;
  readonly invalid: number;
  readonly checked: number;
  readonly baseline: number;
  readonly changes: number;
  readonly usd: number;
  readonly stopped: CycleStop | null;
  /** True when the cycle is over (every row checked, or stopped until the next one). */
  readonly finished: boolean;
}

function usd(micros: number | string): number {
  return Math.round(Number(micros)) / 1e6;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs (or takes up again) `cycle` of `watch` until its rows are checked or it stops. */
export async function runCycle(
  watch: WatchDefinition,
  cycle: WatchCycle,
  deps: CycleDeps,
  options: CycleOptions,
): Promise<CycleSummary> {
  const { db, logger, clock } = deps;
  const concurrency = deps.concurrency ?? DEFAULT_WATCH_CONCURRENCY;
  const rate = deps.rate ?? DEFAULT_WATCH_RATE;
  const endsAtMs = Date.parse(cycle.ends_at);
  const plan = planForCycle(watch, Date.parse(cycle.started_at), deps.webhookUrl);
  // max_usd_per_cycle on launch's one spend rule (launch/spend-budget.ts): what this run may still spend.
  let spentMicros = Number(cycle.usd_micros);
  const budget =
    watch.maxUsdPerCycle === undefined
      ? undefined
      : new SpendBudget({ capUsd: Math.max(0, watch.maxUsdPerCycle - spentMicros / 1e6) });
  const budgetMessage = (): string =>
    `watch "${watch.name}": max_usd_per_cycle ${watch.maxUsdPerCycle} reached ($${usd(spentMicros)} spent); paused until the next cycle`;
  const halt = new AbortController();
  let stopped: CycleStop | null = null;
  const stop = (reason: CycleStop, message: string): void => {
    if (stopped !== null) return;
    stopped = reason;
    if (reason !== 'interrupted') logger.warn({ watch: watch.name, cycle: cycle.cycle, reason }, message);
    halt.abort();
  };
  const onAbort = (): void => stop('interrupted', 'interrupted');
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();

  let invalid = 0;
  let rows = cycle.rows;
  const check = async (
    row: Extract<WatchedRow, { key: string }>,
    reservation: Reservation | undefined,
  ): Promise<void> => {
    const nowIso = (): string => new Date(clock.now()).toISOString();
    const customFields = (row.request.custom_fields ?? {}) as Record<string, unknown>;
    const base = { watch: watch.name, cycle: cycle.cycle, rowKey: row.key, customFields };
    let result: Awaited<ReturnType<typeof launchRequest>>;
    try {
      result = await launchRequest(deps.launcher, watch.operation, row.request);
    } catch (error) {
      reservation?.release();
      if (error instanceof StorageError) throw error;
      const reason = stoppingReasonOf(error);
      const code = (error as { code?: string }).code ?? 'error';
      if (reason === 'quota') {
        stop(
          'quota',
          `watch "${watch.name}": the account is out of quota (${code}); paused until the next cycle`,
        );
        return;
      }
      if (reason === 'auth') {
        stop(
          'auth',
          `watch "${watch.name}": the service refused the key in HOOKSYNC_API_KEY (${code}); paused until the next cycle`,
        );
        return;
      }
      // This row only: it counts as checked, and what was known of it stays known.
      logger.warn(
        { watch: watch.name, line: row.line, err: describe(error) },
        'watch check failed; the row is checked again next cycle',
      );
      await recordCheck(db, { ...base, jobId: undefined, usdMicros: 0, nowIso: nowIso() }, () => ({
        state: undefined,
        baseline: false,
        changes: [],
      }));
      return;
    }
    const total = totalUsdOf(result.response.job);
    const costMicros = typeof total === 'number' ? Math.round(total * 1e6) : 0;
    if (typeof total === 'number') {
      reservation?.settle(
        total,
        watch.operation.name === 'search' ? (personsOf(result.response.job) ?? 0) : 1,
      );
    } else {
      // No price yet (RUNNING, or unreadable): the reservation stands for the rest of the cycle.
      reservation?.hold();
    }
    spentMicros += costMicros;
    const outcome = await recordCheck(
      db,
      { ...base, jobId: result.job_id, usdMicros: costMicros, nowIso: nowIso() },
      (previous) =>
        observeAnswer({
          operation: watch.operation.name === 'search' ? 'search' : 'job-change',
          previous,
          job: result.response.job,
          request: row.request,
          reportBaseline: watch.reportBaseline,
        }),
    );
    if (!outcome.recorded) {
      await addCycleSpend(db, watch.name, cycle.cycle, costMicros, nowIso());
      return;
    }
    for (const change of outcome.changes) {
      logger.info(
        { watch: watch.name, change: change.change, row_key: change.row_key, job_id: change.job_id },
        'watch change',
      );
    }
  };

  const pass = async (pending: number): Promise<number> => {
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;
    let started = 0;
    let remaining = pending;
    let nextAt = clock.now();
    const source = watchedRows(watch, plan, db);
    try {
      for await (const batch of batches(source)) {
        if (stopped !== null) break;
        const done = await keysCheckedIn(
          db,
          watch.name,
          cycle.cycle,
          batch.map((row) => row.key),
        );
        for (const row of batch) {
          if (stopped !== null || failure !== undefined) break;
          if (done.has(row.key)) continue;
          if (options.spread && nextAt > clock.now()) {
            if (!(await clock.sleep(nextAt - clock.now(), halt.signal))) break;
          }
          while (inFlight.size >= concurrency) await Promise.race(inFlight);
          let reservation: Reservation | undefined;
          while (budget !== undefined && stopped === null) {
            reservation = budget.tryReserve(watch.operation.name, unitsOf(watch.operation.name, row.request));
            if (reservation !== undefined) break;
            if (inFlight.size === 0) {
              stop('max_usd', budgetMessage());
              break;
            }
            await Promise.race(inFlight);
          }
          if (stopped !== null) {
            reservation?.release();
            break;
          }
          const running: Promise<void> = check(row, reservation)
            .catch((error: unknown) => {
              failure ??= error;
              halt.abort();
            })
            .finally(() => {
              inFlight.delete(running);
              options.onProgress?.({
                watch: watch.name,
                done: started - inFlight.size,
                total: pending,
                usd: usd(spentMicros),
              });
            });
          inFlight.add(running);
          started += 1;
          remaining = Math.max(0, remaining - 1);
          if (options.spread) {
            const now = clock.now();
            nextAt = now + Math.max(0, endsAtMs - now) / (remaining + 1);
          }
        }
        if (failure !== undefined) break;
      }
    } catch (error) {
      // A CRM that fails between two readings stops the cycle as a failed reading does (below).
      if (!(error instanceof WatchSourceError)) throw error;
      stop('source', `watch "${watch.name}": its source ${error.message}; paused until the next cycle`);
    } finally {
      await Promise.allSettled(inFlight);
      await source.return(undefined);
    }
    if (failure !== undefined) throw failure;
    return started;
  };

  try {
    for (let first = true; stopped === null; first = false) {
      let count: SourceCount;
      try {
        count = await countSource(db, watch, plan, cycle.cycle);
      } catch (error) {
        if (error instanceof StorageError) throw error;
        stop(
          'source',
          error instanceof WatchSourceError
            ? `watch "${watch.name}": its source ${error.message}; paused until the next cycle`
            : `watch "${watch.name}": its source ${sourceName(watch)} cannot be read (${describe(error)}); paused until the next cycle`,
        );
        break;
      }
      invalid = count.invalid;
      rows = count.valid;
      await setCycleRows(db, watch.name, cycle.cycle, count.valid, new Date(clock.now()).toISOString());
      if (first && count.invalid > 0) {
        logger.warn(
          { watch: watch.name, cycle: cycle.cycle, invalid: count.invalid, problems: count.problems },
          `watch "${watch.name}": ${count.invalid} rows of its source are invalid and are not checked (${count.problems.join(' | ')})`,
        );
      }
      if (count.pending === 0) break;
      if (first && options.spread) {
        const needMs = (count.pending * rate.perMs) / rate.requests;
        const leftMs = endsAtMs - clock.now();
        if (needMs > leftMs && (await noteOverrun(db, watch.name, cycle.cycle))) {
          logger.warn(
            {
              watch: watch.name,
              cycle: cycle.cycle,
              rows: count.pending,
              rate: `${rate.requests}/${rate.perMs / 1000}s`,
              need_ms: Math.round(needMs),
              left_ms: Math.max(0, Math.round(leftMs)),
            },
            `watch "${watch.name}": ${count.pending} rows at ${rate.requests} per ${rate.perMs / 1000}s take ${Math.ceil(needMs / 60_000)} min, longer than the ${Math.max(0, Math.round(leftMs / 60_000))} min left of its period; the cycle runs at the rate and the next one starts when it ends`,
          );
        }
      }
      const started = await pass(count.pending);
      if (started === 0) break;
    }
  } finally {
    options.signal.removeEventListener('abort', onAbort);
  }
  const finished = stopped !== 'interrupted';
  if (finished) await finishCycle(db, watch.name, cycle.cycle, stopped, new Date(clock.now()).toISOString());
  const after = (await latestCycle(db, watch.name)) ?? cycle;
  return {
    watch: watch.name,
    cycle: cycle.cycle,
    rows,
    invalid,
    checked: after.checked,
    baseline: after.baseline,
    changes: after.changes,
    usd: usd(after.usd_micros),
    stopped,
    finished,
  };
}

/**
 * One cycle of a watch: every valid row of its source checked once, spread evenly over what is left of the
 * period (or at once, in the foreground), through the launcher and so through the client's pacer, which
 * keeps the account's rate whoever else launches. The source is read again after each pass, so that rows
 * added meanwhile are checked in the running cycle and rows removed are not. A row counts as checked once
 * its answer is recorded (watch-store.ts); a cycle taken up again after a crash checks only the rows not
 * yet recorded: at most the few that were in flight are sent twice. A RUNNING answer counts as the row's
 * check; its finished job is observed once it is stored (settle-pending.ts), and until then holds its
 * reservation of the budget.
 */

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AnswerLimits } from '../client/answer-budget.js';
import { StorageError } from '../errors.js';
import type { Launcher } from '../launch/create-launcher.js';
import { unitsOf } from '../launch/launch-budget.js';
import type { Database } from '../storage/database.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { checkRow } from './check-row.js';
import { CycleBudget } from './cycle-budget.js';
import type { WatchDefinition } from './load-watches.js';
import { reportAbandonedSearches } from './plays/abandon-successor-searches.js';
import { hasPlays } from './plays/play-store.js';
import { runningSearchesIn, runSuccessorSearches, settleSuccessorSearches } from './plays/run-successors.js';
import { reclaimTaskPlays, runTaskPlays } from './plays/run-tasks.js';
import { hasPendingChecks, pendingChecksIn } from './record-check.js';
import { runPass } from './run-pass.js';
import { PENDING_CHECK_INTERVAL_MS, settlePendingChecks } from './settle-pending.js';
import { WatchSourceError } from './sources/crm-source.js';
import { traceCycle } from './trace-cycle.js';
import type { WatchClock } from './watch-clock.js';
import { planForCycle } from './watch-plan.js';
import { finishCycle, getCycle, noteOverrun, setCycleRows, type WatchCycle } from './watch-store.js';
import { countSource, type SourceCount, sourceName } from './watched-rows.js';

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
  /** How a task play reaches its CRM (tests); default the global fetch. */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** Tracing (issue 40): the cycle is a span, its calls client spans under it. */
  readonly telemetry?: Telemetry | undefined;
  /** serve's answer budget and the memory plan's cap on one answer, for a CRM source's pages. */
  readonly answers?: AnswerLimits | undefined;
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
  /** Rows of this run folded into the check of another row with the same key (the source repeats a contact). */
  readonly duplicates: number;
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
  begun: WatchCycle,
  deps: CycleDeps,
  options: CycleOptions,
): Promise<CycleSummary> {
  if (deps.telemetry !== undefined) {
    const { telemetry, ...untraced } = deps;
    return traceCycle(telemetry, watch.name, begun.cycle, () => runCycle(watch, begun, untraced, options));
  }
  const { db, logger, clock } = deps;
  const rate = deps.rate ?? DEFAULT_WATCH_RATE;
  const cycleNo = begun.cycle;
  const nowIso = (): string => new Date(clock.now()).toISOString();
  const endsAtMs = Date.parse(begun.ends_at);
  const plan = planForCycle(watch, Date.parse(begun.started_at), deps.webhookUrl);
  let budget: CycleBudget | undefined;
  let spentMicros = 0;

  // Pending checks first: what finished meanwhile counts before this run's budget is drawn up.
  let pendingKnown =
    (await hasPendingChecks(db, watch.name)) ||
    (watch.plays.successor !== undefined && (await hasPlays(db, watch.name, ['running'], 'successor')));
  let settledAtMs = Number.NEGATIVE_INFINITY;
  // Plays to carry out: checked at the start, then after any check or settlement that recorded changes.
  let playsDue = watch.plays.successor !== undefined || watch.plays.task !== undefined;
  const settle = async (force: boolean): Promise<boolean> => {
    if (!force && (!pendingKnown || clock.now() - settledAtMs < PENDING_CHECK_INTERVAL_MS)) return false;
    settledAtMs = clock.now();
    const settled = [
      ...(await settlePendingChecks(db, watch, { nowIso: nowIso(), logger })),
      ...(watch.plays.successor === undefined
        ? []
        : await settleSuccessorSearches(db, watch, { nowIso: nowIso(), logger })),
    ];
    if (settled.length > 0)
      playsDue ||= watch.plays.task !== undefined || watch.plays.successor !== undefined;
    for (const check of settled) {
      if (check.cycle !== cycleNo) continue;
      budget?.settle(check.jobId, check.totalUsd, check.units);
      spentMicros += Math.round((check.totalUsd ?? 0) * 1e6);
    }
    if (settled.length > 0) {
      pendingKnown =
        (await hasPendingChecks(db, watch.name)) ||
        (watch.plays.successor !== undefined && (await hasPlays(db, watch.name, ['running'], 'successor')));
    }
    return settled.length > 0;
  };
  // A run that died while it made a task leaves it claimed: this run (holding the lease) looks for it first.
  if (watch.plays.task !== undefined) await reclaimTaskPlays(db, watch.name, nowIso());
  // A search such a run claimed is never sent again: reported failed (abandoned) instead of claimed forever.
  await reportAbandonedSearches(db, watch, nowIso(), logger);
  if (pendingKnown) await settle(true);
  const cycle = (await getCycle(db, watch.name, cycleNo)) ?? begun;
  spentMicros = Number(cycle.usd_micros);
  if (watch.maxUsdPerCycle !== undefined) {
    // What earlier runs of this cycle spent counts, and what they left pending is reserved again.
    budget = new CycleBudget(Math.max(0, watch.maxUsdPerCycle - spentMicros / 1e6), watch.operation.name);
    const owed = await pendingChecksIn(db, watch.name, cycleNo);
    const set = Object.fromEntries(watch.entries.set ?? []) as Record<string, unknown>;
    budget.owe(
      owed.map((check) => check.jobId),
      unitsOf(watch.operation.name, set),
    );
    if (watch.plays.successor !== undefined) {
      budget.owe(
        await runningSearchesIn(db, watch.name, cycleNo),
        watch.plays.successor.maxPerChange + 1,
        'search',
      );
    }
  }

  const halt = new AbortController();
  let stopped: CycleStop | null = null;
  const stop = (reason: CycleStop, message: string): void => {
    if (stopped !== null) return;
    stopped = reason;
    if (reason !== 'interrupted') logger.warn({ watch: watch.name, cycle: cycleNo, reason }, message);
    halt.abort();
  };
  const onAbort = (): void => stop('interrupted', 'interrupted');
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();
  const sourceMessage = (error: WatchSourceError): string =>
    `watch "${watch.name}": its source ${error.message}; paused until the next cycle`;

  const check = (row: Parameters<typeof checkRow>[1], reservation: Parameters<typeof checkRow>[2]) =>
    checkRow(
      {
        watch,
        cycle: cycleNo,
        db,
        launcher: deps.launcher,
        logger,
        now: clock.now,
        budget,
        stop,
        spent: (micros) => {
          spentMicros += micros;
        },
        pending: () => {
          pendingKnown = true;
        },
        played: () => {
          playsDue = true;
        },
      },
      row,
      reservation,
    );
  /** Carries out the plays due (successor searches within the budget, CRM tasks); `force`: whatever the flag. */
  const plays = async (force = false): Promise<void> => {
    if (!playsDue && !force) return;
    playsDue = false;
    // A stopped cycle spends nothing more; its searches wait for the next one (tasks cost the service nothing).
    if (watch.plays.successor !== undefined && stopped === null) {
      const run = await runSuccessorSearches({
        watch,
        cycle: cycleNo,
        db,
        launcher: deps.launcher,
        logger,
        now: clock.now,
        budget,
        webhookUrl: deps.webhookUrl,
        stop,
        spent: (micros) => {
          spentMicros += micros;
        },
      });
      // Held back by the budget: tried again after the next check (room may have been freed).
      if (run.blocked) playsDue = true;
      if (await hasPlays(db, watch.name, ['running'], 'successor')) pendingKnown = true;
    }
    if (watch.plays.task !== undefined) {
      await runTaskPlays(
        { watch, db, logger, now: clock.now, fetch: deps.fetch, answers: deps.answers },
        options.signal,
      );
    }
  };
  const passContext = {
    watch,
    cycle: cycleNo,
    db,
    clock,
    plan,
    concurrency: deps.concurrency ?? DEFAULT_WATCH_CONCURRENCY,
    answers: deps.answers,
    spread: options.spread,
    endsAtMs,
    halt,
    budget,
    stopped: () => stopped !== null,
    stopForBudget: () =>
      stop(
        'max_usd',
        `watch "${watch.name}": max_usd_per_cycle ${watch.maxUsdPerCycle} reached ($${usd(spentMicros)} spent); paused until the next cycle`,
      ),
    stopForSource: (error: WatchSourceError) => stop('source', sourceMessage(error)),
    settle,
    plays,
    check,
    progress: (done: number, total: number) =>
      options.onProgress?.({ watch: watch.name, done, total, usd: usd(spentMicros) }),
  };

  let invalid = 0;
  let duplicates = 0;
  let rows = cycle.rows;
  await plays();
  try {
    for (let first = true; stopped === null; first = false) {
      let count: SourceCount;
      try {
        count = await countSource(db, watch, plan, cycleNo, deps.answers);
      } catch (error) {
        if (error instanceof StorageError) throw error;
        stop(
          'source',
          error instanceof WatchSourceError
            ? sourceMessage(error)
            : `watch "${watch.name}": its source ${sourceName(watch)} cannot be read (${describe(error)}); paused until the next cycle`,
        );
        break;
      }
      invalid = count.invalid;
      rows = count.valid;
      await setCycleRows(db, watch.name, cycleNo, count.valid, nowIso());
      if (first) await warnOnce(watch, cycle, count, { db, logger, rate, spread: options.spread, clock });
      if (count.pending === 0) break;
      const { started, folded } = await runPass(passContext, count.pending);
      duplicates += folded;
      if (started === 0) break;
    }
  } finally {
    options.signal.removeEventListener('abort', onAbort);
  }
  const finished = stopped !== 'interrupted';
  if (finished) {
    await settle(true);
    await plays(true);
    await finishCycle(db, watch.name, cycleNo, stopped, nowIso());
  }
  const after = (await getCycle(db, watch.name, cycleNo)) ?? cycle;
  return {
    watch: watch.name,
    cycle: cycleNo,
    rows,
    invalid,
    checked: after.checked,
    baseline: after.baseline,
    changes: after.changes,
    usd: usd(after.usd_micros),
    stopped,
    duplicates,
    finished,
  };
}

/** Says once what a cycle's first reading found wrong: invalid rows, and a period too short for the rate. */
async function warnOnce(
  watch: WatchDefinition,
  cycle: WatchCycle,
  count: SourceCount,
  context: {
    db: Kysely<Database>;
    logger: Logger;
    rate: { readonly requests: number; readonly perMs: number };
    spread: boolean;
    clock: WatchClock;
  },
): Promise<void> {
  const { logger, rate } = context;
  if (count.invalid > 0) {
    logger.warn(
      { watch: watch.name, cycle: cycle.cycle, invalid: count.invalid, problems: count.problems },
      `watch "${watch.name}": ${count.invalid} rows of its source are invalid and are not checked (${count.problems.join(' | ')})`,
    );
  }
  if (!context.spread || count.pending === 0) return;
  const needMs = (count.pending * rate.perMs) / rate.requests;
  const leftMs = Date.parse(cycle.ends_at) - context.clock.now();
  if (needMs <= leftMs || !(await noteOverrun(context.db, watch.name, cycle.cycle))) return;
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

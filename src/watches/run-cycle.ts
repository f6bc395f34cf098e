/**
 * One cycle of a watch: every valid row of its source checked once, spread evenly over what is left of the
 * period (or at once, in the foreground), through the launcher and so through the client's pacer, which
 * keeps the account's rate whoever else launches. Each pass reads the source once and counts it as it reads
 * (a CRM's contacts are not listed once more to be counted); the source is read again after a pass that
 * checked rows, so that rows added meanwhile are checked in the running cycle and rows removed are not,
 * except a CRM's spread pass, which ends with the period, where the next cycle's reading begins. A row counts as checked once
 * its answer is recorded (watch-store.ts); a cycle taken up again after a crash checks only the rows not
 * yet recorded: at most the few that were in flight are sent twice. A RUNNING answer counts as the row's
 * check; its finished job is observed once it is stored (settle-pending.ts), and until then holds its
 * reservation of the budget.
 */

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AnswerLimits } from '../client/answer-budget.js';
import type { RequestPlan } from '../launch/build-request.js';
import type { Launcher } from '../launch/create-launcher.js';
import type { Reservation } from '../launch/spend-budget.js';
import type { Database } from '../storage/database.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { type BuiltRow, checkRow } from './check-row.js';
import type { CycleBudget } from './cycle-budget.js';
import { warnInvalid, warnOverrun } from './cycle-warnings.js';
import type { WatchDefinition } from './load-watches.js';
import { hasPlays } from './plays/play-store.js';
import { runSuccessorSearches, settleSuccessorSearches } from './plays/run-successors.js';
import { runTaskPlays } from './plays/run-tasks.js';
import { hasPendingWork, takeCycleUp } from './resume-cycle.js';
import { type PassContext, runPass } from './run-pass.js';
import { PENDING_CHECK_INTERVAL_MS, settlePendingChecks } from './settle-pending.js';
import { WatchSourceError } from './sources/crm-source.js';
import { traceCycle } from './trace-cycle.js';
import type { WatchClock } from './watch-clock.js';
import { planForCycle } from './watch-plan.js';
import { finishCycle, getCycle, setCycleRows, type WatchCycle } from './watch-store.js';
import { countSource, type SourceCount } from './watched-rows.js';

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
  /** Checks of this pass ended. */
  readonly done: number;
  /** Checks the pass expects (a file's count, a CRM's last reading); undefined when not known up front. */
  readonly total: number | undefined;
  /** Valid rows of the source read so far by this pass. */
  readonly read: number;
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
  return (await CycleRun.open(watch, begun, deps, options)).run();
}

/** Where a run of the cycle stands: running, or stopped for a reason (it then starts nothing more). */
type CycleState = { readonly phase: 'running' } | { readonly phase: 'stopped'; readonly reason: CycleStop };

/**
 * One run of a cycle: its passes (run-pass.ts) call back into it to check a row, settle pending checks, carry
 * out plays and stop; what changes as it runs is its state, the money spent, and what is pending or due.
 */
class CycleRun implements PassContext {
  readonly cycle: number;
  readonly db: Kysely<Database>;
  readonly clock: WatchClock;
  readonly plan: RequestPlan;
  readonly concurrency: number;
  readonly spread: boolean;
  readonly endsAtMs: number;
  readonly halt = new AbortController();
  readonly answers: AnswerLimits | undefined;
  readonly #deps: CycleDeps;
  readonly #options: CycleOptions;
  readonly #begun: WatchCycle;
  #state: CycleState = { phase: 'running' };
  #spentMicros: number;
  /** Whether any check or search may be pending, and when the store was last looked at for them. */
  #pending: { known: boolean; lookedAtMs: number };
  /** Plays to carry out: at the start, then after any check or settlement that recorded changes. */
  #playsDue: boolean;

  private constructor(
    readonly watch: WatchDefinition,
    begun: WatchCycle,
    readonly budget: CycleBudget | undefined,
    pending: boolean,
    deps: CycleDeps,
    options: CycleOptions,
  ) {
    this.#deps = deps;
    this.#options = options;
    this.#begun = begun;
    this.cycle = begun.cycle;
    this.db = deps.db;
    this.clock = deps.clock;
    this.plan = planForCycle(watch, Date.parse(begun.started_at), deps.webhookUrl);
    this.concurrency = deps.concurrency ?? DEFAULT_WATCH_CONCURRENCY;
    this.spread = options.spread;
    this.endsAtMs = Date.parse(begun.ends_at);
    this.answers = deps.answers;
    this.#spentMicros = Number(begun.usd_micros);
    this.#pending = { known: pending, lookedAtMs: Number.NEGATIVE_INFINITY };
    this.#playsDue = watch.plays.successor !== undefined || watch.plays.task !== undefined;
  }

  /** Takes the cycle up (resume-cycle.ts) and starts this run of it. */
  static async open(
    watch: WatchDefinition,
    begun: WatchCycle,
    deps: CycleDeps,
    options: CycleOptions,
  ): Promise<CycleRun> {
    const taken = await takeCycleUp(
      watch,
      begun,
      deps.db,
      deps.logger,
      new Date(deps.clock.now()).toISOString(),
    );
    return new CycleRun(watch, taken.cycle, taken.budget, taken.pending, deps, options);
  }

  stopped(): boolean {
    return this.#state.phase === 'stopped';
  }

  stopForBudget(): void {
    this.#stop(
      'max_usd',
      `watch "${this.watch.name}": max_usd_per_cycle ${this.watch.maxUsdPerCycle} reached ($${usd(this.#spentMicros)} spent); paused until the next cycle`,
    );
  }

  stopForSource(error: WatchSourceError): void {
    this.#stop(
      'source',
      `watch "${this.watch.name}": its source ${error.message}; paused until the next cycle`,
    );
  }

  async settle(force: boolean): Promise<boolean> {
    const { db, watch } = this;
    const { logger } = this.#deps;
    const now = this.clock.now();
    if (!force && (!this.#pending.known || now - this.#pending.lookedAtMs < PENDING_CHECK_INTERVAL_MS))
      return false;
    this.#pending.lookedAtMs = now;
    const nowIso = this.#nowIso();
    const settled = [
      ...(await settlePendingChecks(db, watch, { nowIso, logger })),
      ...(watch.plays.successor === undefined
        ? []
        : await settleSuccessorSearches(db, watch, { nowIso, logger })),
    ];
    if (settled.length === 0) return false;
    this.#playsDue ||= watch.plays.task !== undefined || watch.plays.successor !== undefined;
    for (const check of settled) {
      if (check.cycle !== this.cycle) continue;
      this.budget?.settle(check.jobId, check.totalUsd, check.units);
      this.#spentMicros += Math.round((check.totalUsd ?? 0) * 1e6);
    }
    this.#pending.known = await hasPendingWork(db, watch);
    return true;
  }

  /** Carries out the plays due (successor searches within the budget, CRM tasks); `force`: whatever is due. */
  async plays(force = false): Promise<void> {
    if (!this.#playsDue && !force) return;
    this.#playsDue = false;
    const { watch, db } = this;
    const { logger, launcher, fetch } = this.#deps;
    // A stopped cycle spends nothing more; its searches wait for the next one (tasks cost the service nothing).
    if (watch.plays.successor !== undefined && !this.stopped()) {
      const run = await runSuccessorSearches({
        watch,
        cycle: this.cycle,
        db,
        launcher,
        logger,
        now: this.clock.now,
        budget: this.budget,
        webhookUrl: this.#deps.webhookUrl,
        stop: (reason, message) => this.#stop(reason, message),
        spent: (micros) => this.#spend(micros),
      });
      // Held back by the budget: tried again after the next check (room may have been freed).
      if (run.blocked) this.#playsDue = true;
      if (await hasPlays(db, watch.name, ['running'], 'successor')) this.#pending.known = true;
    }
    if (watch.plays.task !== undefined) {
      await runTaskPlays(
        { watch, db, logger, now: this.clock.now, fetch, answers: this.answers },
        this.#options.signal,
      );
    }
  }

  check(row: BuiltRow, reservation: Reservation | undefined): Promise<void> {
    return checkRow(
      {
        watch: this.watch,
        cycle: this.cycle,
        db: this.db,
        launcher: this.#deps.launcher,
        logger: this.#deps.logger,
        now: this.clock.now,
        budget: this.budget,
        stop: (reason, message) => this.#stop(reason, message),
        spent: (micros) => this.#spend(micros),
        pending: () => {
          this.#pending.known = true;
        },
        played: () => {
          this.#playsDue = true;
        },
      },
      row,
      reservation,
    );
  }

  progress(done: number, expected: number | undefined, read: number): void {
    this.#options.onProgress?.({
      watch: this.watch.name,
      done,
      total: expected,
      read,
      usd: usd(this.#spentMicros),
    });
  }

  /** The passes, then (unless interrupted) the last settlements and plays, and the cycle's end recorded. */
  async run(): Promise<CycleSummary> {
    const { signal } = this.#options;
    const onAbort = (): void => this.#stop('interrupted', 'interrupted');
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    let read: SourceRead;
    try {
      await this.plays();
      read = await this.#passes();
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    const finished = !(this.#state.phase === 'stopped' && this.#state.reason === 'interrupted');
    if (finished) {
      await this.settle(true);
      await this.plays(true);
      await finishCycle(this.db, this.watch.name, this.cycle, this.#stopReason(), this.#nowIso());
    }
    const after = (await getCycle(this.db, this.watch.name, this.cycle)) ?? this.#begun;
    return {
      watch: this.watch.name,
      cycle: this.cycle,
      rows: read.rows,
      invalid: read.invalid,
      checked: after.checked,
      baseline: after.baseline,
      changes: after.changes,
      usd: usd(after.usd_micros),
      stopped: this.#stopReason(),
      duplicates: read.duplicates,
      finished,
    };
  }

  /**
   * Passes until one checks nothing, each reading the source once. A file is counted before each pass (a
   * local read; its count is exact); a CRM is not: its pass is spread by the rows its last reading held (a
   * first cycle spread over its period counts it once), and counts itself as it reads.
   */
  async #passes(): Promise<SourceRead> {
    const { watch, db } = this;
    const read = { rows: this.#begun.rows, invalid: 0, duplicates: 0 };
    for (let first = true; !this.stopped(); first = false) {
      let expected: number | undefined;
      if (watch.source.kind === 'file' || (first && this.spread && (await this.#lastRows()) === undefined)) {
        let count: SourceCount;
        try {
          count = await countSource(db, watch, this.plan, this.cycle, this.answers);
        } catch (error) {
          if (!(error instanceof WatchSourceError)) throw error;
          this.stopForSource(error);
          break;
        }
        read.rows = count.valid;
        read.invalid = count.invalid;
        await setCycleRows(db, watch.name, this.cycle, count.valid, this.#nowIso());
        if (first) warnInvalid(this.#deps.logger, watch.name, this.cycle, count);
        if (count.pending === 0) break;
        expected = count.pending;
      } else if (first) {
        const rows = await this.#lastRows();
        expected = rows === undefined ? undefined : Math.max(0, rows - this.#begun.checked);
        // Until this pass has read the CRM through, its rows are those of the last reading (status page).
        if (rows !== undefined && this.#begun.rows === 0) {
          read.rows = rows;
          await setCycleRows(db, watch.name, this.cycle, rows, this.#nowIso());
        }
      }
      if (first && expected !== undefined && this.spread) {
        await warnOverrun(
          { db, logger: this.#deps.logger, watch: watch.name, cycle: this.cycle },
          {
            pending: expected,
            rate: this.#deps.rate ?? DEFAULT_WATCH_RATE,
            leftMs: this.endsAtMs - this.clock.now(),
          },
        );
      }
      const pass = await runPass(this, expected);
      read.duplicates += pass.folded;
      if (pass.complete) {
        read.rows = pass.tally.valid;
        read.invalid = pass.tally.invalid;
        await setCycleRows(db, watch.name, this.cycle, pass.tally.valid, this.#nowIso());
        if (first && watch.source.kind !== 'file')
          warnInvalid(this.#deps.logger, watch.name, this.cycle, pass.tally);
      }
      if (pass.started === 0) break;
      // A CRM's spread pass ends with the period, and the next cycle reads the CRM as it starts: what was
      // added meanwhile is checked then, not by a second reading of the same contacts minutes earlier.
      if (this.spread && watch.source.kind !== 'file') break;
    }
    return read;
  }

  /** Valid rows of the source at its last reading: this cycle's, else the cycle before's; undefined: none. */
  async #lastRows(): Promise<number | undefined> {
    if (this.#begun.rows > 0) return this.#begun.rows;
    const before = this.cycle > 1 ? await getCycle(this.db, this.watch.name, this.cycle - 1) : undefined;
    return before === undefined || before.rows === 0 ? undefined : before.rows;
  }

  #stop(reason: CycleStop, message: string): void {
    if (this.#state.phase === 'stopped') return;
    this.#state = { phase: 'stopped', reason };
    if (reason !== 'interrupted')
      this.#deps.logger.warn({ watch: this.watch.name, cycle: this.cycle, reason }, message);
    this.halt.abort();
  }

  #stopReason(): CycleStop | null {
    return this.#state.phase === 'stopped' ? this.#state.reason : null;
  }

  #spend(micros: number): void {
    this.#spentMicros += micros;
  }

  #nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/** What the passes read of the source: its valid and invalid rows, and the rows folded as duplicates. */
interface SourceRead {
  rows: number;
  invalid: number;
  duplicates: number;
}

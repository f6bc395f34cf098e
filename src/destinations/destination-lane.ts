/**
 * One outbox destination's share of the dispatcher: claims its due events in pages (claim-window.ts),
 * starts them as slots free (bounded concurrency, optional rate window, a short linger to fill a batch),
 * attempts each batch under a timeout (a single delivery is a batch of one), plans what each result means
 * (plan-outcome.ts) and records the outcomes in batches (outcome-flusher.ts). Lanes share nothing, so a
 * slow, hanging or failing destination holds up only its own events; memory is bounded by the slots,
 * whatever the backlog.
 */
import type { Logger } from 'pino';
import type { HooksyncDatabase } from '../storage/open-database.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { type AttemptContext, attemptContextOf, attemptEvents } from './attempt-events.js';
import { claimHeldEvents, type HeldEvent, planClaim } from './claim-window.js';
import type { DestinationMetrics } from './destination-metrics.js';
import type { DispatchSettings, OutboxDestination } from './destination-type.js';
import { type ClaimedEvent, pauseDestination } from './outbox.js';
import { createOutcomeFlusher } from './outcome-flusher.js';
import { NOT_NORMALIZED_WAIT_MS, type OutcomePlan, planRelease } from './plan-outcome.js';
import { createStartPacing } from './start-pacing.js';
import { traceAttempt } from './trace-attempt.js';
import { whenUnlocked } from './when-unlocked.js';

/** Collaborators of a lane. */
export interface LaneDeps {
  readonly database: HooksyncDatabase;
  readonly logger: Logger;
  readonly now: () => number;
  /** Who claims (a dispatcher's id, unique per process). */
  readonly holder: string;
  readonly metrics?: DestinationMetrics | undefined;
  /** For the retry jitter (default Math.random). */
  readonly random?: (() => number) | undefined;
  /** Tracing (issue 40): each attempt a span, child of the delivery that stored its (first) event's job. */
  readonly telemetry?: Telemetry | undefined;
  /** The destination's type, for the attempt's span. */
  readonly type?: string | undefined;
}

/** What a drain did: events delivered, to be retried later, and failed. */
export interface DrainReport {
  delivered: number;
  retried: number;
  failed: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The dispatcher's worker for one outbox destination. */
export class DestinationLane {
  readonly name: string;
  readonly #destination: OutboxDestination;
  readonly #settings: DispatchSettings;
  readonly #deps: LaneDeps;
  readonly #attempt: AttemptContext;
  readonly #pacing;
  readonly #outcomes;
  readonly #stop = new AbortController();
  /** Attempts in flight: one per batch. */
  readonly #attempts = new Set<Promise<void>>();
  readonly #queue: HeldEvent[] = [];
  /** Tallies of the drains going on, fed as outcomes are carried out. */
  readonly #drains = new Set<DrainReport>();
  #ticking: Promise<void> | undefined;
  #again = false;
  #paused = false;
  #yielding = false;
  #lastClaimed = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(name: string, destination: OutboxDestination, settings: DispatchSettings, deps: LaneDeps) {
    this.name = name;
    this.#destination = destination;
    this.#settings = settings;
    this.#deps = deps;
    this.#pacing = createStartPacing(settings, this.#batchSize, deps.now);
    this.#attempt = attemptContextOf(name, destination, settings, { ...deps, stop: this.#stop.signal });
    this.#outcomes = createOutcomeFlusher({ ...deps, destination: name, onFlushed: () => this.wake() });
  }

  /** Whether the lane is paused (a 410, until `destinations resume`). */
  get paused(): boolean {
    return this.#paused;
  }

  /** Sets the paused state read from the database (resume from the CLI); wakes the lane on resume. */
  setPaused(paused: boolean): void {
    const resumed = this.#paused && !paused;
    this.#paused = paused;
    if (paused) this.#releaseQueue();
    if (resumed) this.wake();
  }

  /**
   * While the process is busy (receiving comes first), start one attempt at a time: delivery slows down
   * and catches up later, receiving does not.
   */
  setYielding(yielding: boolean): void {
    const resumed = this.#yielding && !yielding;
    this.#yielding = yielding;
    if (resumed) this.#pump();
  }

  /** Looks for due events now (or right after the look in progress). */
  wake(): void {
    if (this.#stop.signal.aborted) return;
    if (this.#ticking !== undefined) {
      this.#again = true;
      return;
    }
    this.#ticking = this.#tick().finally(() => {
      this.#ticking = undefined;
    });
  }

  /** Delivers what is due now and returns once nothing more is (`destinations deliver`), with what it did. */
  async drain(): Promise<DrainReport> {
    const report: DrainReport = { delivered: 0, retried: 0, failed: 0 };
    this.#drains.add(report);
    try {
      for (;;) {
        this.wake();
        await this.#ticking;
        this.#pump();
        await this.#settle();
        const idle = this.#attempts.size === 0 && this.#queue.length === 0 && !this.#outcomes.busy();
        if ((this.#lastClaimed === 0 && idle) || this.#paused) return report;
      }
    } finally {
      this.#drains.delete(report);
    }
  }

  /** Stops claiming, aborts attempts in flight (their events go back unchanged) and records outcomes. */
  async stop(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#timer);
    await this.#ticking;
    this.#releaseQueue();
    await this.#settle();
  }

  async #settle(): Promise<void> {
    while (this.#attempts.size > 0 || this.#outcomes.busy()) {
      await Promise.all([...this.#attempts]);
      await this.#outcomes.settled();
    }
  }

  async #tick(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#claim();
      } catch (error) {
        this.#lastClaimed = 0;
        this.#deps.logger.warn(
          { destination: this.name, err: error },
          'could not claim destination events; will retry',
        );
        return;
      }
    } while (this.#again && !this.#stop.signal.aborted);
  }

  /** Events per attempt: the type's batch size when it delivers in batches, else one. */
  get #batchSize(): number {
    return this.#destination.deliverBatch === undefined ? 1 : (this.#settings.batch?.size ?? 1);
  }

  /** Claims a page of due events, as many as fit beside those held (claim-window.ts). */
  async #claim(): Promise<void> {
    this.#lastClaimed = 0;
    if (this.#paused || this.#stop.signal.aborted) return;
    const nowMs = this.#deps.now();
    const { limit, claimedUntilMs } = planClaim({
      settings: this.#settings,
      batchSize: this.#batchSize,
      attempts: this.#attempts.size,
      queued: this.#queue.length,
      recording: this.#outcomes.held(),
      nowMs,
    });
    if (limit === 0) return;
    const held = await claimHeldEvents(this.#deps.database, {
      destination: this.name,
      holder: this.#deps.holder,
      limit,
      nowMs,
      claimedUntilMs,
      normalized: this.#attempt.rows !== undefined || this.#destination.normalized === true,
      envelope: this.#destination.rowsOnly !== true,
    });
    this.#lastClaimed = held.length;
    this.#queue.push(...held);
    if (this.#stop.signal.aborted) this.#releaseQueue();
    if (held.length > 0) this.#pump();
    if (held.length === limit) this.#again = true;
  }

  /** Pumps again in `ms` (the pacing said wait); one timer. */
  #pumpIn(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#pump(), ms);
    this.#timer.unref();
  }

  /** Starts held events while slots (and the pacing) allow. */
  #pump(): void {
    const slots = this.#yielding ? 1 : this.#settings.concurrency;
    while (this.#attempts.size < slots && this.#queue.length > 0) {
      if (this.#paused || this.#stop.signal.aborted) {
        this.#releaseQueue();
        return;
      }
      const waitMs = this.#pacing.waitMs({
        queued: this.#queue.length,
        yielding: this.#yielding,
        draining: this.#drains.size > 0,
      });
      if (waitMs > 0) {
        this.#pumpIn(waitMs);
        return;
      }
      this.#start(this.#queue.splice(0, this.#batchSize));
    }
  }

  /** One attempt for `held` (a batch, or one event), its outcomes recorded as it settles them, the rest when it ends. */
  #start(held: HeldEvent[]): void {
    // Events whose outcomes the attempt settled before it ended (written segments), carried out at once.
    const settled = new Set<ClaimedEvent>();
    let carried = Promise.resolve();
    const early = (plans: OutcomePlan[], events: ClaimedEvent[]) => {
      for (const event of events) settled.add(event);
      carried = carried.then(() => this.#carryOut(plans));
    };
    const telemetry = this.#deps.telemetry;
    const attempt = (
      telemetry === undefined
        ? attemptEvents(held, this.#attempt, early)
        : traceAttempt(telemetry, this.name, this.#deps.type, held, () =>
            attemptEvents(held, this.#attempt, early),
          )
    )
      .catch((error: unknown): OutcomePlan[] => {
        this.#deps.logger.warn({ destination: this.name, err: error }, 'destination attempt failed');
        return held
          .filter(({ event }) => !settled.has(event))
          .map(({ event }) => planRelease(event, this.#deps.now(), NOT_NORMALIZED_WAIT_MS));
      })
      .then(async (plans) => {
        await carried;
        await this.#carryOut(plans);
        this.#attempts.delete(attempt);
        this.#pump();
        if (this.#queue.length < this.#batchSize * this.#settings.concurrency) this.wake();
      });
    this.#attempts.add(attempt);
  }

  /** Carries plans out: pauses, the drains' tallies, then counting, logging and recording (outcome-flusher.ts). */
  async #carryOut(plans: readonly OutcomePlan[]): Promise<void> {
    for (const plan of plans) {
      if (plan.pause !== undefined) await this.#pause(plan.pause.error, plan.warn);
      const { outcome } = plan;
      if (outcome !== 'delivered' && outcome !== 'retried' && outcome !== 'failed') continue;
      for (const report of this.#drains) report[outcome] += 1;
    }
    this.#outcomes.push(plans);
  }

  /** Pauses the lane (said once) and the destination in the database, for every process. */
  async #pause(reason: string, warn: OutcomePlan['warn']): Promise<void> {
    const { logger, database, now } = this.#deps;
    if (!this.#paused && warn !== undefined) logger.warn(warn.fields, warn.message);
    this.#paused = true;
    try {
      await whenUnlocked(() => pauseDestination(database.db, this.name, reason, iso(now())));
    } catch (error) {
      logger.warn({ destination: this.name, err: error }, 'could not record the pause of a destination');
    }
  }

  /** Hands held, unstarted events back as they were (paused or stopping). */
  #releaseQueue(): void {
    const nowMs = this.#deps.now();
    this.#outcomes.push(this.#queue.splice(0).map(({ event }) => planRelease(event, nowMs)));
  }
}

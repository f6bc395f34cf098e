/**
 * One outbox destination's share of the dispatcher: claims its due events in pages of a bounded size
 * (three times its slots), starts them as slots free (bounded concurrency, optional rate limit), attempts each
 * under a timeout, and records the outcomes in batches. Lanes share nothing, so a slow, hanging or failing destination holds up only its
 * own events; memory is bounded by the slots, whatever the backlog.
 */
import type { Logger } from 'pino';
import { exportRows, templateHeader } from '../export/export-rows.js';
import { loadTemplate } from '../export/load-template.js';
import type { ExportTemplate } from '../export/parse-template.js';
import { WATCH_CHANGE_KIND } from '../storage/job-store/record-outbox-events.js';
import type { HooksyncDatabase } from '../storage/open-database.js';
import type { DestinationMetrics } from './destination-metrics.js';
import type {
  AttemptResult,
  DispatchSettings,
  OutboxDelivery,
  OutboxDestination,
} from './destination-type.js';
import {
  type ClaimedEvent,
  claimEvents,
  completeEvents,
  type EventChange,
  type EventCompletion,
  loadEventChanges,
  loadEventJobs,
  pauseDestination,
  queuedForNormalizer,
} from './outbox.js';
import { planRetry } from './plan-retry.js';
import { RateLimiter } from './rate-limiter.js';
import { whenUnlocked } from './when-unlocked.js';

/** A claim outlasts the attempt's timeout by this much: time to record the outcome before it lapses. */
export const CLAIM_MARGIN_MS = 10_000;
/** Events a lane holds at least and at most (in flight plus claimed, waiting for a slot). */
export const MIN_HELD = 16;
export const MAX_HELD = 512;
/** While the process is busy receiving, a batch lane starts one batch per this long at most. */
export const YIELD_BATCH_GAP_MS = 1_000;
/** How long an event waits when its job's rows are not written yet (a template destination). */
export const NOT_NORMALIZED_WAIT_MS = 1_000;

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
}

type EventJob = Awaited<ReturnType<typeof loadEventJobs>> extends Map<string, infer J> ? J : never;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The dispatcher's worker for one outbox destination. */
export class DestinationLane {
  readonly name: string;
  readonly #destination: OutboxDestination;
  readonly #settings: DispatchSettings;
  readonly #deps: LaneDeps;
  readonly #rate: RateLimiter | undefined;
  readonly #stop = new AbortController();
  readonly #attempts = new Set<Promise<void>>();
  #completions: EventCompletion[] = [];
  #flushing: Promise<void> | undefined;
  #ticking: Promise<void> | undefined;
  #again = false;
  #inFlight = 0;
  #paused = false;
  #yielding = false;
  #lastClaimed = 0;
  /** Changes of claimed events not yet prepared, by change id. */
  readonly #changes = new Map<string, EventChange>();
  readonly #queue: Array<{ event: ClaimedEvent; job: EventJob | undefined; queued: boolean }> = [];
  #rateTimer: NodeJS.Timeout | undefined;
  #lingerTimer: NodeJS.Timeout | undefined;
  /** A batch short of full waits once for more: 'waiting' until the linger ends, then 'over'. */
  #linger: 'none' | 'waiting' | 'over' = 'none';
  #draining = false;
  #lastBatchAt = Number.NEGATIVE_INFINITY;
  #yieldTimer: NodeJS.Timeout | undefined;
  #template: Promise<ExportTemplate> | undefined;
  /** Outcomes since the lane was created (for `destinations deliver`'s report). */
  readonly counts = { delivered: 0, retried: 0, failed: 0, superseded: 0 };

  constructor(name: string, destination: OutboxDestination, settings: DispatchSettings, deps: LaneDeps) {
    this.name = name;
    this.#destination = destination;
    this.#settings = settings;
    this.#deps = deps;
    this.#rate = settings.rate === undefined ? undefined : new RateLimiter(settings.rate, deps.now);
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

  /** Delivers what is due now and returns once nothing more is (for `destinations deliver`). */
  async drain(): Promise<void> {
    // Nothing more is coming: a batch short of full goes at once.
    this.#draining = true;
    try {
      for (;;) {
        this.wake();
        await this.#ticking;
        this.#pump();
        await this.#settle();
        const idle = this.#inFlight === 0 && this.#queue.length === 0 && this.#completions.length === 0;
        if ((this.#lastClaimed === 0 && idle) || this.#paused) return;
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Stops claiming, aborts attempts in flight (their events go back unchanged) and records outcomes. */
  async stop(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#rateTimer);
    clearTimeout(this.#lingerTimer);
    clearTimeout(this.#yieldTimer);
    await this.#ticking;
    this.#releaseQueue();
    await this.#settle();
  }

  async #settle(): Promise<void> {
    while (this.#attempts.size > 0 || this.#flushing !== undefined) {
      await Promise.all([...this.#attempts]);
      await this.#flushing;
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

  /** Events held at most: in flight plus claimed and waiting for a slot (a page, so slots never wait on SQL). */
  get #capacity(): number {
    return Math.min(MAX_HELD, Math.max(3 * this.#settings.concurrency * this.#batchSize, MIN_HELD));
  }

  /** Events per attempt: the type's batch size when it delivers in batches, else one. */
  get #batchSize(): number {
    return this.#destination.deliverBatch === undefined ? 1 : (this.#settings.batch?.size ?? 1);
  }

  /**
   * Claims a page of due events (as many as fit beside those held) until its claim could lapse: time for
   * every held event to take its turn at the slots, under the timeout and the rate limit, plus a margin.
   */
  async #claim(): Promise<void> {
    this.#lastClaimed = 0;
    if (this.#paused || this.#stop.signal.aborted) return;
    const limit = this.#capacity - this.#inFlight - this.#queue.length;
    // A claim is a write: take a page's worth at a time, not one event per freed slot.
    if (limit <= 0 || (limit < this.#settings.concurrency && this.#queue.length > 0)) return;
    const { database, now, holder } = this.#deps;
    const { concurrency, timeoutMs, rate } = this.#settings;
    const held = this.#capacity;
    const turnsMs = Math.ceil(held / (concurrency * this.#batchSize)) * timeoutMs;
    const rateMs = rate === undefined ? 0 : Math.ceil((held * rate.perMs) / rate.requests);
    const nowMs = now();
    const claimed = await whenUnlocked(() =>
      claimEvents(database, {
        destination: this.name,
        holder,
        limit,
        nowIso: iso(nowMs),
        claimedUntil: iso(nowMs + turnsMs + rateMs + CLAIM_MARGIN_MS),
      }),
    );
    this.#lastClaimed = claimed.length;
    if (claimed.length === 0) return;
    const jobIds = claimed.filter((event) => event.changeId === undefined).map((event) => event.jobId);
    const jobs = await loadEventJobs(database.db, jobIds);
    const changes = await loadEventChanges(
      database.db,
      claimed.flatMap((event) => (event.changeId === undefined ? [] : [event.changeId])),
    );
    for (const [id, change] of changes) this.#changes.set(id, change);
    const queued =
      this.#destination.template === undefined && this.#destination.normalized !== true
        ? new Set<string>()
        : await queuedForNormalizer(database.db, jobIds);
    for (const event of claimed) {
      this.#queue.push({ event, job: jobs.get(event.jobId), queued: queued.has(event.jobId) });
    }
    if (this.#stop.signal.aborted) this.#releaseQueue();
    this.#pump();
    if (claimed.length === limit) this.#again = true;
  }

  /** Starts held events while slots (and rate tokens) are free. */
  #pump(): void {
    const slots = this.#yielding ? 1 : this.#settings.concurrency;
    while (this.#inFlight < slots && this.#queue.length > 0) {
      if (this.#paused || this.#stop.signal.aborted) {
        this.#releaseQueue();
        return;
      }
      if (this.#rate !== undefined && this.#rate.take(1) === 0) {
        clearTimeout(this.#rateTimer);
        this.#rateTimer = setTimeout(() => this.#pump(), this.#rate.waitMs());
        this.#rateTimer.unref();
        return;
      }
      if (this.#batchSize > 1) {
        // A short linger fills the batch: HubSpot's calls are the limit, not the events.
        const lingerMs = this.#settings.batch?.lingerMs ?? 0;
        if (this.#queue.length < this.#batchSize && lingerMs > 0 && !this.#draining) {
          if (this.#linger === 'waiting') return;
          if (this.#linger === 'none') {
            this.#linger = 'waiting';
            this.#lingerTimer = setTimeout(() => {
              this.#linger = 'over';
              this.#pump();
            }, lingerMs);
            this.#lingerTimer.unref();
            return;
          }
        }
        // A batch is a lot of work at once: while receiving is busy, one batch a second at most.
        const gapMs = this.#lastBatchAt + YIELD_BATCH_GAP_MS - performance.now();
        if (this.#yielding && !this.#draining && gapMs > 0) {
          clearTimeout(this.#yieldTimer);
          this.#yieldTimer = setTimeout(() => this.#pump(), gapMs);
          this.#yieldTimer.unref();
          return;
        }
        this.#lastBatchAt = performance.now();
        clearTimeout(this.#lingerTimer);
        this.#linger = 'none';
        this.#startBatch(this.#queue.splice(0, this.#batchSize));
        continue;
      }
      const { event, job, queued } = this.#queue.shift()!;
      this.#start(event, job, queued);
    }
  }

  #startBatch(items: Array<{ event: ClaimedEvent; job: EventJob | undefined; queued: boolean }>): void {
    this.#inFlight += 1;
    const attempt = this.#attemptBatch(items)
      .catch((error: unknown): EventCompletion[] => {
        this.#deps.logger.warn({ destination: this.name, err: error }, 'destination attempt failed');
        const nextAttemptAt = iso(this.#deps.now() + NOT_NORMALIZED_WAIT_MS);
        return items.map(({ event }) => ({ id: event.id, result: 'release', nextAttemptAt }));
      })
      .then((completions) => {
        this.#completions.push(...completions);
        this.#inFlight -= 1;
        this.#attempts.delete(attempt);
        this.#flush();
        this.#pump();
        if (this.#queue.length < this.#batchSize * this.#settings.concurrency) this.wake();
      });
    this.#attempts.add(attempt);
  }

  /** One deliverBatch call for the events that still need one; the others end without an attempt. */
  async #attemptBatch(
    items: Array<{ event: ClaimedEvent; job: EventJob | undefined; queued: boolean }>,
  ): Promise<EventCompletion[]> {
    const { now, metrics } = this.#deps;
    const completions: EventCompletion[] = [];
    const ready: Array<{ event: ClaimedEvent; delivery: OutboxDelivery }> = [];
    for (const { event, job, queued } of items) {
      const prepared = this.#prepare(event, job, queued);
      if ('completion' in prepared) completions.push(prepared.completion);
      else ready.push({ event, delivery: prepared.delivery });
    }
    if (ready.length === 0) return completions;
    const signal = AbortSignal.any([AbortSignal.timeout(this.#settings.timeoutMs), this.#stop.signal]);
    const started = performance.now();
    const results = await this.#destination.deliverBatch!(
      ready.map(({ delivery }) => delivery),
      signal,
    );
    metrics?.attemptSeconds.observe({ destination: this.name }, (performance.now() - started) / 1000);
    for (const [index, { event }] of ready.entries()) {
      const result = results[index]!;
      if (this.#stop.signal.aborted && result.outcome !== 'delivered') {
        completions.push({ id: event.id, result: 'release', nextAttemptAt: iso(now()) });
      } else {
        completions.push(await this.#outcome(event, result));
      }
    }
    return completions;
  }

  /** An event's delivery, or how it ends without one (purged, superseded, rows not written yet). */
  #prepare(
    event: ClaimedEvent,
    job: EventJob | undefined,
    queued: boolean,
  ): { completion: EventCompletion } | { delivery: OutboxDelivery } {
    const { now, logger } = this.#deps;
    if (event.changeId !== undefined) {
      const change = this.#changes.get(event.changeId);
      this.#changes.delete(event.changeId);
      if (change === undefined) {
        this.#count('failed');
        return {
          completion: {
            id: event.id,
            result: 'failed',
            status: null,
            error: 'the change is no longer stored (purged)',
          },
        };
      }
      return {
        delivery: {
          eventId: `watch_change_${change.id}`,
          jobId: change.job_id,
          revision: 0,
          kind: WATCH_CHANGE_KIND,
          source: 'watch',
          status: change.change,
          envelopeText: '',
          change,
        },
      };
    }
    if (job === undefined) {
      const error = 'the job is no longer stored (purged)';
      logger.warn(
        { destination: this.name, job_id: event.jobId, revision: event.revision },
        `destination gave up on an event: ${error}`,
      );
      this.#count('failed');
      return { completion: { id: event.id, result: 'failed', status: null, error } };
    }
    if (Number(job.revision) > event.revision) {
      this.#count('superseded');
      return { completion: { id: event.id, result: 'superseded' } };
    }
    if (queued)
      return {
        completion: { id: event.id, result: 'release', nextAttemptAt: iso(now() + NOT_NORMALIZED_WAIT_MS) },
      };
    return {
      delivery: {
        eventId: `job_${job.job_id}_r${event.revision}`,
        jobId: job.job_id,
        revision: event.revision,
        kind: job.kind,
        source: job.source,
        status: job.status,
        envelopeText: job.envelope,
      },
    };
  }

  #start(event: ClaimedEvent, job: EventJob | undefined, queued: boolean): void {
    this.#inFlight += 1;
    const attempt = this.#attempt(event, job, queued)
      .catch((error: unknown): EventCompletion => {
        this.#deps.logger.warn({ destination: this.name, err: error }, 'destination attempt failed');
        return {
          id: event.id,
          result: 'release',
          nextAttemptAt: iso(this.#deps.now() + NOT_NORMALIZED_WAIT_MS),
        };
      })
      .then((completion) => {
        this.#completions.push(completion);
        this.#inFlight -= 1;
        this.#attempts.delete(attempt);
        this.#flush();
        this.#pump();
        if (this.#queue.length < this.#settings.concurrency) this.wake();
      });
    this.#attempts.add(attempt);
  }

  /** Hands held, unstarted events back as they were (paused or stopping). */
  #releaseQueue(): void {
    if (this.#queue.length === 0) return;
    const nowIso = iso(this.#deps.now());
    for (const { event } of this.#queue.splice(0)) {
      this.#completions.push({ id: event.id, result: 'release', nextAttemptAt: nowIso });
    }
    this.#flush();
  }

  #count(outcome: keyof DestinationLane['counts']): void {
    this.counts[outcome] += 1;
    this.#deps.metrics?.events.inc({ destination: this.name, outcome });
  }

  async #rowsOf(jobId: string) {
    this.#template ??= loadTemplate(this.#destination.template!);
    const template = await this.#template;
    const header = templateHeader(template);
    const rows: Array<Record<string, string>> = [];
    for await (const cells of exportRows(this.#deps.database.db, template, { jobId, all: true })) {
      rows.push(Object.fromEntries(header.map((column, index) => [column, cells[index] ?? ''])));
    }
    return rows;
  }

  async #attempt(event: ClaimedEvent, job: EventJob | undefined, queued: boolean): Promise<EventCompletion> {
    const { now, metrics } = this.#deps;
    const prepared = this.#prepare(event, job, queued);
    if ('completion' in prepared) return prepared.completion;
    const rows =
      this.#destination.template === undefined ? undefined : await this.#rowsOf(prepared.delivery.jobId);
    const signal = AbortSignal.any([AbortSignal.timeout(this.#settings.timeoutMs), this.#stop.signal]);
    const started = performance.now();
    const result: AttemptResult = await this.#destination.deliver(
      { ...prepared.delivery, ...(rows !== undefined ? { rows } : {}) },
      signal,
    );
    if (this.#stop.signal.aborted && result.outcome !== 'delivered') {
      // Cut short by shutdown: not the destination's fault, so not an attempt.
      return { id: event.id, result: 'release', nextAttemptAt: iso(now()) };
    }
    metrics?.attemptSeconds.observe({ destination: this.name }, (performance.now() - started) / 1000);
    return this.#outcome(event, result);
  }

  async #outcome(event: ClaimedEvent, result: AttemptResult): Promise<EventCompletion> {
    const { now, logger, database } = this.#deps;
    const context = { destination: this.name, job_id: event.jobId, revision: event.revision };
    switch (result.outcome) {
      case 'delivered':
        this.#count('delivered');
        return { id: event.id, result: 'delivered', status: result.status };
      case 'pause':
        if (!this.#paused) {
          this.#paused = true;
          logger.warn(
            { ...context, status: result.status },
            `destination paused (it answered ${result.status}); resume it with: hooksync destinations resume ${this.name}`,
          );
        }
        await whenUnlocked(() => pauseDestination(database.db, this.name, result.error, iso(now())));
        this.#deps.metrics?.events.inc({ destination: this.name, outcome: 'paused' });
        return {
          id: event.id,
          result: 'release',
          nextAttemptAt: iso(now()),
          status: result.status,
          error: result.error,
        };
      case 'wait':
        // A rate limit: not the event's fault, so not an attempt; it comes back when the pause ends.
        this.#deps.metrics?.events.inc({ destination: this.name, outcome: 'rate_limited' });
        return {
          id: event.id,
          result: 'release',
          nextAttemptAt: iso(now() + result.waitMs),
          status: result.status,
          error: result.error,
        };
      case 'fail':
        this.#count('failed');
        logger.warn(
          { ...context, status: result.status, error: result.error },
          'destination refused an event; it is failed until replayed',
        );
        return { id: event.id, result: 'failed', status: result.status, error: result.error };
      case 'retry': {
        const attempts = event.attempts + 1;
        const waitMs = planRetry({
          attempts,
          scheduleMs: this.#settings.scheduleMs,
          retryAfterMs: result.retryAfterMs,
          random: this.#deps.random,
        });
        if (waitMs === undefined) {
          this.#count('failed');
          logger.warn(
            { ...context, attempts, status: result.status, error: result.error },
            'destination gave up on an event after its retry schedule; it is failed until replayed',
          );
          return { id: event.id, result: 'failed', status: result.status, error: result.error };
        }
        this.#count('retried');
        return {
          id: event.id,
          result: 'retry',
          status: result.status,
          error: result.error,
          nextAttemptAt: iso(now() + waitMs),
        };
      }
    }
  }

  /** Records the outcomes gathered so far; one write at a time, the next one taking all that came meanwhile. */
  #flush(): void {
    if (this.#flushing !== undefined) return;
    this.#flushing = (async () => {
      while (this.#completions.length > 0) {
        const batch = this.#completions;
        this.#completions = [];
        try {
          await whenUnlocked(() =>
            completeEvents(this.#deps.database.db, this.name, batch, iso(this.#deps.now())),
          );
        } catch (error) {
          // The claims lapse and the events are attempted again: at least once, never lost.
          this.#deps.logger.warn(
            { destination: this.name, err: error, events: batch.length },
            'could not record destination outcomes; those events will be attempted again',
          );
        }
      }
    })().finally(() => {
      this.#flushing = undefined;
      if (this.#completions.length > 0) this.#flush();
      this.wake();
    });
  }
}

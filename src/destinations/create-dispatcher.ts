/**
 * The dispatcher: every configured destination at work. Outbox destinations get a lane each (claims,
 * attempts, retries; see destination-lane.ts), scheduled ones (the file drop) their cron. It runs inside
 * `hooksync serve` beside the receiver, which never waits on it: the outbox is the only thing they share.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Logger, pino } from 'pino';
import type { AnswerLimits } from '../client/answer-budget.js';
import type { HooksyncDatabase } from '../storage/open-database.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { DestinationLane } from './destination-lane.js';
import type { DestinationMetrics } from './destination-metrics.js';
import type { ConfiguredDestination, ScheduledDestination } from './destination-type.js';
import { pausedDestinations, pruneDeliveredEvents, syncDestinations } from './outbox.js';
import { whenUnlocked } from './when-unlocked.js';

/** How often lanes look for due events when nothing woke them, and re-read paused states. */
export const DEFAULT_POLL_MS = 500;
/**
 * Event-loop utilization above which the dispatcher yields (one attempt at a time per destination) until
 * the next poll: the thread also reads callbacks, and receiving comes first.
 */
export const YIELD_UTILIZATION = 0.7;
/** Delivered (and superseded) events are kept this long for replay, then deleted; failed ones stay. */
export const DEFAULT_DELIVERED_RETENTION_MS = 7 * 86_400_000;
/** How often the retention is applied. */
export const RETENTION_INTERVAL_MS = 3_600_000;

/** Collaborators and knobs of {@link createDispatcher}. */
export interface DispatcherOptions {
  readonly database: HooksyncDatabase;
  readonly destinations: readonly ConfiguredDestination[];
  readonly logger?: Logger;
  /** Clock in epoch ms (default Date.now): due times, retry schedule, timestamps. */
  readonly now?: () => number;
  readonly fetch?: typeof globalThis.fetch;
  /** serve's answer budget and the memory plan's cap on one CRM answer; none: each client's own cap. */
  readonly answers?: AnswerLimits | undefined;
  readonly metrics?: DestinationMetrics;
  /** Default {@link DEFAULT_POLL_MS}. */
  readonly pollMs?: number;
  /** For the retry jitter (default Math.random). */
  readonly random?: () => number;
  /** Event-loop utilization above which lanes yield (default {@link YIELD_UTILIZATION}; above 1: never). */
  readonly yieldUtilization?: number;
  /**
   * Deliveries being received right now (the receiver's in-flight count): lanes yield only while some are,
   * so that delivery alone, catching up after a burst, runs at full speed. Default: always some.
   */
  readonly receiving?: () => number;
  /** Tracing (issue 40): each attempt a span continuing its delivery's trace, each call a client span. */
  readonly telemetry?: Telemetry | undefined;
}

/** What one `deliver` run did, per destination. */
export interface DeliverReport {
  readonly destinations: ReadonlyArray<{ readonly name: string; readonly result: string }>;
}

/** The running (or runnable) dispatcher. */
export interface Dispatcher {
  /** Records the configuration's routing in the database (before any job is stored with it). */
  sync(): Promise<void>;
  /** Starts the lanes and schedules. */
  start(): void;
  /**
   * Wakes every lane (a job was just stored), unless the thread is busy receiving (the last poll found it
   * over the yield threshold): then the poll and the lanes' own pace hand events on, and receiving comes first.
   */
  wake(): void;
  /** One pass: every due event attempted once, every scheduled destination run once. */
  deliverOnce(): Promise<DeliverReport>;
  /** Stops claiming, lets attempts in flight end (aborted), records their outcomes. */
  stop(): Promise<void>;
}

/** Creates the dispatcher; nothing runs until `start()` or `deliverOnce()`. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { database } = options;
  const logger = options.logger ?? pino({ level: 'silent' });
  const now = options.now ?? Date.now;
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const fetch = options.fetch ?? globalThis.fetch;
  const deps = {
    database,
    logger,
    now,
    fetch: options.telemetry ? options.telemetry.tracedFetch(fetch) : fetch,
    answers: options.answers,
  };
  const lanes: DestinationLane[] = [];
  const scheduled: Array<{ name: string; destination: ScheduledDestination }> = [];
  for (const configured of options.destinations) {
    const destination = configured.create(deps);
    if (destination.kind === 'outbox') {
      lanes.push(
        new DestinationLane(configured.name, destination, configured.dispatch!, {
          database,
          logger,
          now,
          holder,
          metrics: options.metrics,
          random: options.random,
          ...(options.telemetry ? { telemetry: options.telemetry, type: configured.type } : {}),
        }),
      );
      // An outbox destination's own schedule (an alert destination's digests) runs beside its lane.
      if (destination.schedule !== undefined) {
        scheduled.push({ name: `${configured.name} (digests)`, destination: destination.schedule });
      }
    } else {
      scheduled.push({ name: configured.name, destination });
    }
  }
  const refreshPaused = async () => {
    const paused = await whenUnlocked(() => pausedDestinations(database.db));
    for (const lane of lanes) lane.setPaused(paused.has(lane.name));
  };
  let poll: NodeJS.Timeout | undefined;
  let retention: NodeJS.Timeout | undefined;
  const stops: Array<() => Promise<void>> = [];
  let polling: Promise<void> | undefined;
  let yielding = false;

  return {
    sync: () =>
      whenUnlocked(() => syncDestinations(database.db, options.destinations, new Date(now()).toISOString())),
    start() {
      let utilization = performance.eventLoopUtilization();
      const tick = (first = false) => {
        const current = performance.eventLoopUtilization();
        const busy =
          performance.eventLoopUtilization(current, utilization).utilization >
          (options.yieldUtilization ?? YIELD_UTILIZATION);
        utilization = current;
        for (const lane of lanes) lane.setYielding(busy);
        // The first tick's window is the instant of start: it says nothing about receiving.
        if (!first) yielding = busy;
        polling ??= refreshPaused()
          .catch((error: unknown) => logger.warn({ err: error }, 'could not read destination states'))
          .then(() => {
            for (const lane of lanes) lane.wake();
          })
          .finally(() => {
            polling = undefined;
          });
      };
      tick(true);
      poll = setInterval(tick, options.pollMs ?? DEFAULT_POLL_MS);
      poll.unref();
      // A write on a connection that waits for no lock: retried while the store commits, like every other.
      const prune = () =>
        whenUnlocked(() =>
          pruneDeliveredEvents(database.db, new Date(now() - DEFAULT_DELIVERED_RETENTION_MS).toISOString()),
        ).catch((error: unknown) => logger.warn({ err: error }, 'could not delete old delivered events'));
      void prune();
      retention = setInterval(prune, RETENTION_INTERVAL_MS);
      retention.unref();
      for (const { destination } of scheduled) stops.push(destination.start());
    },
    wake() {
      if (yielding) return;
      for (const lane of lanes) lane.wake();
    },
    async deliverOnce() {
      await refreshPaused();
      const results: Array<{ name: string; result: string }> = [];
      await Promise.all(
        lanes.map(async (lane) => {
          if (lane.paused) {
            results.push({ name: lane.name, result: 'paused' });
            return;
          }
          const { delivered, retried, failed } = await lane.drain();
          const summary = `${delivered} delivered, ${retried} to retry later, ${failed} failed`;
          results.push({ name: lane.name, result: lane.paused ? `paused (${summary})` : summary });
        }),
      );
      for (const { name, destination } of scheduled) {
        results.push({ name, result: await destination.runOnce() });
      }
      return { destinations: results };
    },
    async stop() {
      clearInterval(poll);
      clearInterval(retention);
      await polling;
      await Promise.all(lanes.map((lane) => lane.stop()));
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}

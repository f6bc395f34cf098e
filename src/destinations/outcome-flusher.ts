/**
 * A lane's outcomes on their way to the outbox: as attempts end, each plan is counted (the
 * `hooksync_destination_events_total` metric) and its warning logged, and the completions are gathered
 * and written one batch at a time (the next write takes all that came meanwhile). A write that fails is logged and dropped: the claims
 * lapse and the events are attempted again (at least once, never lost).
 */
import type { Logger } from 'pino';
import type { HooksyncDatabase } from '../storage/open-database.js';
import type { DestinationMetrics } from './destination-metrics.js';
import { completeEvents, type EventCompletion } from './outbox.js';
import type { OutcomePlan } from './plan-outcome.js';
import { whenUnlocked } from './when-unlocked.js';

/** Gathers completions and writes them. */
export interface OutcomeFlusher {
  /**
   * Counts and logs the plans (a pause's warning is the lane's to say, once), adds their completions and
   * starts a write unless one is going (the one going takes them after).
   */
  push(plans: readonly OutcomePlan[]): void;
  /** Completions not written yet, or a write going on. */
  busy(): boolean;
  /** Events whose outcome is not written yet (gathered, or in the write going on): still held by the lane. */
  held(): number;
  /** Resolves once nothing is left to write. */
  settled(): Promise<void>;
}

/** A flusher for `destination`; `onFlushed` runs after each round of writes (the lane looks for more work). */
export function createOutcomeFlusher(options: {
  readonly destination: string;
  readonly database: HooksyncDatabase;
  readonly logger: Logger;
  readonly now: () => number;
  readonly metrics?: DestinationMetrics | undefined;
  readonly onFlushed: () => void;
}): OutcomeFlusher {
  const { destination, database, logger, now, metrics } = options;
  let gathered: EventCompletion[] = [];
  let writing = 0;
  let flushing: Promise<void> | undefined;
  const flush = (): void => {
    if (flushing !== undefined) return;
    flushing = (async () => {
      // From the next turn of the event loop: the outcomes of every attempt that ends in this one go in
      // the same write. The lane counts them as held meanwhile (held()), so it claims no more than before.
      await new Promise((resolve) => setImmediate(resolve));
      while (gathered.length > 0) {
        const batch = gathered;
        gathered = [];
        writing = batch.length;
        try {
          await whenUnlocked(() =>
            completeEvents(database.db, destination, batch, new Date(now()).toISOString()),
          );
        } catch (error) {
          logger.warn(
            { destination, err: error, events: batch.length },
            'could not record destination outcomes; those events will be attempted again',
          );
        }
        writing = 0;
      }
    })().finally(() => {
      flushing = undefined;
      if (gathered.length > 0) flush();
      options.onFlushed();
    });
  };
  return {
    push(plans) {
      if (plans.length === 0) return;
      for (const plan of plans) {
        if (plan.warn !== undefined && plan.pause === undefined)
          logger.warn(plan.warn.fields, plan.warn.message);
        if (plan.outcome !== undefined) metrics?.events.inc({ destination, outcome: plan.outcome });
        gathered.push(plan.completion);
      }
      flush();
    },
    busy: () => gathered.length > 0 || flushing !== undefined,
    held: () => gathered.length + writing,
    async settled() {
      while (flushing !== undefined) await flushing;
    },
  };
}

/**
 * How much a lane claims and for how long (planClaim, without I/O), and the claim itself with the stored
 * jobs behind the events (claimHeldEvents). A lane holds a bounded number of events (in
 * flight plus claimed and waiting for a slot: a page, so that slots never wait on SQL), and claims a page
 * for as long as it could take every held event to have its turn at the slots, under the attempt timeout
 * and the rate limit, plus a margin to record the outcome before the claim lapses.
 */
import type { HooksyncDatabase } from '../storage/open-database.js';
import type { DispatchSettings } from './destination-type.js';
import {
  type ClaimedEvent,
  claimEvents,
  type EventChange,
  loadEventChanges,
  loadEventJobs,
  queuedForNormalizer,
} from './outbox.js';
import type { EventJob } from './plan-outcome.js';
import { whenUnlocked } from './when-unlocked.js';

/** A claimed event with its stored job, and whether its rows are still to be written. */
export interface HeldEvent {
  readonly event: ClaimedEvent;
  readonly job: EventJob | undefined;
  readonly queued: boolean;
  /** The watch change the event carries, when it carries one (undefined when purged since). */
  readonly change?: EventChange | undefined;
}

/** A claim outlasts the attempt's timeout by this much: time to record the outcome before it lapses. */
export const CLAIM_MARGIN_MS = 10_000;
/** Events a lane holds at least and at most (in flight plus claimed, waiting for a slot). */
export const MIN_HELD = 16;
export const MAX_HELD = 512;

/**
 * Events a lane holds at most: three rounds of its slots, within {@link MIN_HELD} and {@link MAX_HELD}, and
 * never less than one batch (a type whose batches are larger, Salesforce's Bulk jobs, holds one).
 */
export function laneCapacity(settings: Pick<DispatchSettings, 'concurrency'>, batchSize: number): number {
  return Math.min(Math.max(MAX_HELD, batchSize), Math.max(3 * settings.concurrency * batchSize, MIN_HELD));
}

/** What a lane should claim now: how many events (0: not now) and until when (epoch ms). */
export function planClaim(options: {
  readonly settings: Pick<DispatchSettings, 'concurrency' | 'timeoutMs' | 'rate'>;
  readonly batchSize: number;
  /** Events in attempts now (each attempt holds `batchSize` at most; counted as one). */
  readonly attempts: number;
  /** Claimed events waiting for a slot. */
  readonly queued: number;
  /** Events attempted whose outcome is not written yet (their claims are still held). */
  readonly recording?: number;
  readonly nowMs: number;
}): { readonly limit: number; readonly claimedUntilMs: number } {
  const { settings, batchSize, nowMs } = options;
  const { concurrency, timeoutMs, rate } = settings;
  const capacity = laneCapacity(settings, batchSize);
  const limit = capacity - options.attempts - options.queued - (options.recording ?? 0);
  // A claim is a write: take a page's worth at a time, not one event per freed slot.
  if (limit <= 0 || (limit < concurrency && options.queued > 0)) return { limit: 0, claimedUntilMs: nowMs };
  const turnsMs = Math.ceil(capacity / (concurrency * batchSize)) * timeoutMs;
  const rateMs = rate === undefined ? 0 : Math.ceil((capacity * rate.perMs) / rate.requests);
  return { limit, claimedUntilMs: nowMs + turnsMs + rateMs + CLAIM_MARGIN_MS };
}

/**
 * Claims up to `limit` due events of `destination` for `holder` until `claimedUntilMs`, with their jobs;
 * `normalized`: whether the destination reads the jobs' rows (its events wait while they are queued);
 * `envelope`: whether it reads the stored envelopes (else they are not decoded).
 */
export async function claimHeldEvents(
  database: HooksyncDatabase,
  options: {
    readonly destination: string;
    readonly holder: string;
    readonly limit: number;
    readonly nowMs: number;
    readonly claimedUntilMs: number;
    readonly normalized: boolean;
    readonly envelope: boolean;
  },
): Promise<HeldEvent[]> {
  const claimed = await whenUnlocked(() =>
    claimEvents(database, {
      destination: options.destination,
      holder: options.holder,
      limit: options.limit,
      nowIso: new Date(options.nowMs).toISOString(),
      claimedUntil: new Date(options.claimedUntilMs).toISOString(),
    }),
  );
  if (claimed.length === 0) return [];
  const jobIds = claimed.filter((event) => event.changeId === undefined).map((event) => event.jobId);
  const jobs = await loadEventJobs(database.db, jobIds, { envelope: options.envelope });
  // A change's event is mapped from the job that found it, by a destination that reads rows: it waits too.
  const queued = options.normalized
    ? await queuedForNormalizer(
        database.db,
        claimed.map((event) => event.jobId),
      )
    : new Set<string>();
  const changes = await loadEventChanges(
    database.db,
    claimed.flatMap((event) => (event.changeId === undefined ? [] : [event.changeId])),
  );
  return claimed.map((event) =>
    event.changeId === undefined
      ? { event, job: jobs.get(event.jobId), queued: queued.has(event.jobId) }
      : { event, job: undefined, queued: queued.has(event.jobId), change: changes.get(event.changeId) },
  );
}

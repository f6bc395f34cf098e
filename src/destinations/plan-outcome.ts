/**
 * What becomes of a claimed event, decided without I/O: whether it needs an attempt at all (its job
 * purged, a newer revision stored, its rows not written yet), and what an attempt's result means for it
 * (delivered, retried on the destination's schedule, failed, released for a pause or a rate limit). The
 * lane carries the plan out: it records the completion, counts the metric, logs and pauses.
 */

import { WATCH_CHANGE_KIND } from '../storage/job-store/record-outbox-events.js';
import type { AttemptResult, OutboxDelivery } from './destination-type.js';
import type { ClaimedEvent, EventChange, EventCompletion } from './outbox.js';
import { MAX_RETRY_AFTER_MS, planRetry } from './plan-retry.js';

/** How long an event waits when its job's rows are not written yet (a template destination). */
export const NOT_NORMALIZED_WAIT_MS = 1_000;

/** The stored job behind an event (outbox.ts's loadEventJobs). */
export interface EventJob {
  readonly job_id: string;
  readonly kind: string;
  readonly source: string;
  readonly status: string;
  readonly revision: number | string;
  /** The envelope's original text ('' for a destination that reads rows only: not decoded). */
  readonly envelope: string;
}

/** The `hooksync_destination_events_total` outcome an event's end counts as. */
export type EventOutcome = 'delivered' | 'retried' | 'failed' | 'superseded' | 'paused' | 'rate_limited';

/** What to do with an event. */
export interface OutcomePlan {
  readonly completion: EventCompletion;
  /** The metric's outcome; none when the event goes back untouched (not an attempt). */
  readonly outcome?: EventOutcome;
  /** The destination answered that it is gone for now: pause it with this reason (and say so once). */
  readonly pause?: { readonly status: number; readonly error: string };
  /** A line to log at warn level, with its fields. */
  readonly warn?: { readonly message: string; readonly fields: Readonly<Record<string, unknown>> };
}

/** The policy an outcome is planned under. */
export interface OutcomePolicy {
  /** The destination's name, for log fields. */
  readonly destination: string;
  readonly scheduleMs: readonly number[];
  readonly nowMs: number;
  /** For the retry jitter: a number in [0, 1) (default Math.random). */
  readonly random?: (() => number) | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The event's delivery, or how it ends without an attempt (job purged, superseded, rows not written yet). */
export function planDelivery(
  event: ClaimedEvent,
  job: EventJob | undefined,
  queued: boolean,
  policy: OutcomePolicy,
  change?: EventChange,
): { readonly plan: OutcomePlan } | { readonly delivery: OutboxDelivery } {
  if (event.changeId !== undefined) return planChangeDelivery(event, change, queued, policy.nowMs);
  if (job === undefined) {
    const error = 'the job is no longer stored (purged)';
    return {
      plan: {
        completion: { id: event.id, result: 'failed', status: null, error },
        outcome: 'failed',
        warn: {
          message: `destination gave up on an event: ${error}`,
          fields: { destination: policy.destination, job_id: event.jobId, revision: event.revision },
        },
      },
    };
  }
  if (Number(job.revision) > event.revision) {
    return { plan: { completion: { id: event.id, result: 'superseded' }, outcome: 'superseded' } };
  }
  if (queued) {
    const nextAttemptAt = iso(policy.nowMs + NOT_NORMALIZED_WAIT_MS);
    return { plan: { completion: { id: event.id, result: 'release', nextAttemptAt } } };
  }
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

/**
 * A watch change's event: the change itself, or failed when the change was purged; it waits while its
 * job's rows are not written yet (`queued`: a destination that maps the change from them, a CRM's).
 */
function planChangeDelivery(
  event: ClaimedEvent,
  change: EventChange | undefined,
  queued: boolean,
  nowMs: number,
): { readonly plan: OutcomePlan } | { readonly delivery: OutboxDelivery } {
  if (change === undefined) {
    const error = 'the change is no longer stored (purged)';
    return {
      plan: { completion: { id: event.id, result: 'failed', status: null, error }, outcome: 'failed' },
    };
  }
  if (queued) {
    const nextAttemptAt = iso(nowMs + NOT_NORMALIZED_WAIT_MS);
    return { plan: { completion: { id: event.id, result: 'release', nextAttemptAt } } };
  }
  return { delivery: changeDelivery(change) };
}

/** What a destination is handed for a watch change's event. */
export function changeDelivery(change: EventChange): OutboxDelivery {
  return {
    eventId: `watch_change_${change.id}`,
    jobId: change.job_id,
    revision: 0,
    kind: WATCH_CHANGE_KIND,
    source: 'watch',
    status: change.change,
    envelopeText: '',
    change,
  };
}

/** An event handed back as it was, due now or after `waitMs`: not an attempt. */
export function planRelease(event: ClaimedEvent, nowMs: number, waitMs = 0): OutcomePlan {
  const waited = Math.min(Math.max(0, waitMs), MAX_RETRY_AFTER_MS);
  return { completion: { id: event.id, result: 'release', nextAttemptAt: iso(nowMs + waited) } };
}

/** What an attempt's result means for its event. */
export function planOutcome(event: ClaimedEvent, result: AttemptResult, policy: OutcomePolicy): OutcomePlan {
  const { nowMs } = policy;
  const context = { destination: policy.destination, job_id: event.jobId, revision: event.revision };
  switch (result.outcome) {
    case 'delivered':
      return {
        completion: { id: event.id, result: 'delivered', status: result.status },
        outcome: 'delivered',
      };
    case 'pause':
      return {
        completion: {
          id: event.id,
          result: 'release',
          nextAttemptAt: iso(nowMs),
          status: result.status,
          error: result.error,
        },
        outcome: 'paused',
        pause: { status: result.status, error: result.error },
        warn: {
          message: `destination paused (it answered ${result.status}); resume it with: hooksync destinations resume ${policy.destination}`,
          fields: { ...context, status: result.status },
        },
      };
    case 'wait':
      // A rate limit: not the event's fault, so not an attempt; it comes back when the pause ends.
      return {
        completion: {
          id: event.id,
          result: 'release',
          nextAttemptAt: iso(nowMs + Math.min(Math.max(0, result.waitMs), MAX_RETRY_AFTER_MS)),
          status: result.status,
          error: result.error,
        },
        outcome: 'rate_limited',
      };
    case 'fail':
      return {
        completion: { id: event.id, result: 'failed', status: result.status, error: result.error },
        outcome: 'failed',
        warn: {
          message: 'destination refused an event; it is failed until replayed',
          fields: { ...context, status: result.status, error: result.error },
        },
      };
    case 'retry': {
      const attempts = event.attempts + 1;
      const waitMs = planRetry({
        attempts,
        scheduleMs: policy.scheduleMs,
        retryAfterMs: result.retryAfterMs,
        ...(policy.random ? { random: policy.random } : {}),
      });
      if (waitMs === undefined) {
        return {
          completion: { id: event.id, result: 'failed', status: result.status, error: result.error },
          outcome: 'failed',
          warn: {
            message: 'destination gave up on an event after its retry schedule; it is failed until replayed',
            fields: { ...context, attempts, status: result.status, error: result.error },
          },
        };
      }
      return {
        completion: {
          id: event.id,
          result: 'retry',
          status: result.status,
          error: result.error,
          nextAttemptAt: iso(nowMs + waitMs),
        },
        outcome: 'retried',
      };
    }
  }
}

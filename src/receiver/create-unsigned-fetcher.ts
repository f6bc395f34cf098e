/**
 * HOOKSYNC_UNSIGNED=fetch within a budget (issue 19): an unsigned callback is never stored; its claimed
 * job is fetched from the finder with the account's key, and the finder's copy is stored. So that an
 * unauthenticated post cannot spend the account's rate budget or hold delivery slots:
 * - ids the ledger expects are fetched; other ids share a small budget per minute, beyond which they are
 *   answered 429 and counted;
 * - one fetch per job id at a time; a request waits for it only briefly, then gets 500 (the sender
 *   retries) while the fetch finishes once in the background;
 * - the finder's answer is stored only when its job_id is the one claimed;
 * - close() waits for fetches in flight at most its grace period.
 */
import type { Logger } from 'pino';
import { claimedJobId } from '../contract/job-kind.js';
import type { ReceiverMetrics } from './create-metrics.js';
import { type DeliveryAnswer, refusal, retryLater } from './delivery-answer.js';

/** Unsigned callbacks for ids the ledger does not expect that may be fetched per minute. */
export const DEFAULT_UNSIGNED_FETCH_UNKNOWN_PER_MINUTE = 5;
/** How long a request waits for its fetch before it is answered 500, in ms. */
export const DEFAULT_UNSIGNED_FETCH_WAIT_MS = 2000;

/** Fetches a job from its finder: the exact response text and its parsed value. */
export type FinderFetch = (
  kind: 'job_change' | 'search_contact',
  jobId: string,
) => Promise<{ raw: string; job: unknown }>;

/** What the fetcher works with. */
export interface UnsignedFetcherDeps {
  fetchFromFinder: FinderFetch;
  /** True when the ledger holds a pending entry for the id (tracked, launched, admin-added). */
  isExpected: (jobId: string) => Promise<boolean>;
  /** True when the job is already stored with a final status: nothing to fetch. */
  isStored: (jobId: string) => Promise<boolean>;
  /** Stores the finder's copy and answers. */
  commit: (raw: string, job: unknown) => Promise<DeliveryAnswer>;
  now?: () => number;
  /** Default {@link DEFAULT_UNSIGNED_FETCH_UNKNOWN_PER_MINUTE}. */
  unknownPerMinute?: number;
  /** Default {@link DEFAULT_UNSIGNED_FETCH_WAIT_MS}. */
  waitMs?: number;
  logger?: Logger;
  metrics?: ReceiverMetrics;
}

/** The fetcher. */
export interface UnsignedFetcher {
  /** Answers one unsigned callback claiming `jobId` of `kind`. Never throws. */
  fetch(kind: 'job_change' | 'search_contact', jobId: string): Promise<DeliveryAnswer>;
  /** Waits for fetches in flight, at most `graceMs`. */
  close(graceMs: number): Promise<void>;
}

/** Creates the fetcher. */
export function createUnsignedFetcher(deps: UnsignedFetcherDeps): UnsignedFetcher {
  const now = deps.now ?? Date.now;
  const perMinute = deps.unknownPerMinute ?? DEFAULT_UNSIGNED_FETCH_UNKNOWN_PER_MINUTE;
  const waitMs = deps.waitMs ?? DEFAULT_UNSIGNED_FETCH_WAIT_MS;
  const inflight = new Map<string, Promise<DeliveryAnswer>>();
  let window = { minute: -1, used: 0 };
  let closed = false;

  const spendUnknownBudget = (): boolean => {
    const minute = Math.floor(now() / 60_000);
    if (window.minute !== minute) window = { minute, used: 0 };
    if (window.used >= perMinute) return false;
    window.used += 1;
    return true;
  };

  const run = async (kind: 'job_change' | 'search_contact', jobId: string): Promise<DeliveryAnswer> => {
    let fetched: { raw: string; job: unknown };
    try {
      fetched = await deps.fetchFromFinder(kind, jobId);
    } catch (error) {
      if ((error as { status?: number }).status === 404) {
        deps.metrics?.unsignedFetches.inc({ result: 'not_found' });
        return refusal('FINDER_REFUSED', 'unsigned callback for a job the finder does not know');
      }
      deps.metrics?.unsignedFetches.inc({ result: 'failed' });
      deps.logger?.warn({ err: error, job_id: jobId }, 'finder fetch for an unsigned callback failed');
      return retryLater('FINDER_UNAVAILABLE', 'could not fetch the job from its finder; retry later');
    }
    if (claimedJobId(fetched.job) !== jobId) {
      deps.metrics?.unsignedFetches.inc({ result: 'mismatch' });
      return refusal('FINDER_REFUSED', 'the finder answered with another job than the one claimed');
    }
    deps.metrics?.unsignedFetches.inc({ result: 'fetched' });
    return deps.commit(fetched.raw, fetched.job);
  };

  return {
    async fetch(kind, jobId) {
      if (closed) return retryLater('SHUTTING_DOWN', 'the receiver is shutting down; retry later');
      let task = inflight.get(jobId);
      if (task === undefined) {
        if (await deps.isStored(jobId)) {
          return { status: 200, body: { job_id: jobId, kind, duplicate: true }, outcome: 'duplicate' };
        }
        if (!(await deps.isExpected(jobId)) && !spendUnknownBudget()) {
          deps.metrics?.unsignedFetches.inc({ result: 'budget_spent' });
          return retryLater(
            'UNSIGNED_FETCH_BUDGET',
            'unsigned callbacks for jobs not in the ledger are over their budget; retry later',
            60,
          );
        }
        // Checked again: another request may have started the same fetch while this one looked.
        task = inflight.get(jobId);
        if (task === undefined) {
          const started = run(kind, jobId).finally(() => inflight.delete(jobId));
          inflight.set(jobId, started);
          task = started;
        }
      }
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), waitMs);
      });
      try {
        const answer = await Promise.race([task, waited]);
        if (answer !== undefined) return answer;
        deps.metrics?.unsignedFetches.inc({ result: 'pending' });
        return retryLater('FINDER_PENDING', 'the job is being fetched from its finder; retry later');
      } finally {
        clearTimeout(timer);
      }
    },
    async close(graceMs) {
      closed = true;
      if (inflight.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...inflight.values()]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

/**
 * How a CRM client retries one call: through p-retry, with one small policy object per CRM. A retry here
 * is a short one inside one attempt of the lane (a 5xx, a dropped connection, a lock, search's one-second
 * window); what the policy does not retry goes back to the lane as a `CrmError`, whose schedule (or, for a
 * rate limit, its deferral of every pending event) takes over.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { CrmError } from '../../errors.js';

/** A CRM client's retry rules. */
export interface CrmRetryPolicy {
  /** Retries after the first attempt, at most. */
  readonly retries: number;
  /** Whether `error`, met on attempt `attempt` (1-based), is worth another try now. */
  shouldRetry(error: CrmError, attempt: number): boolean;
  /**
   * How long to wait before the next try: from the server when it says (Retry-After, a rate-limit window),
   * otherwise the policy's own backoff.
   */
  delayMs(error: CrmError, attempt: number): number;
}

/** How an aborted or timed-out call is reported: the lane retries it on its schedule. */
const timedOut = (cause: unknown) => new CrmError(null, { kind: 'retry', error: 'timed out' }, { cause });

/**
 * Runs `call` under `policy`; an abort of `signal` stops at once (no further try, no wait finished) and is
 * reported as a retryable `CrmError` ("timed out"), as the lane's attempt timeout expects.
 */
export async function withCrmRetries<T>(
  policy: CrmRetryPolicy,
  signal: AbortSignal,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await pRetry(call, {
      retries: policy.retries,
      // The wait is the policy's, slept in shouldRetry (p-retry has no per-try delay of its own).
      minTimeout: 0,
      factor: 1,
      signal,
      shouldRetry: async ({ error, attemptNumber }) => {
        if (!(error instanceof CrmError) || signal.aborted || !policy.shouldRetry(error, attemptNumber))
          return false;
        await sleep(policy.delayMs(error, attemptNumber), undefined, { signal });
        return true;
      },
    });
  } catch (error) {
    if (signal.aborted && !(error instanceof CrmError && error.status !== null)) throw timedOut(error);
    throw error;
  }
}

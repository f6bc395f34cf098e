/**
 * How a CRM client retries one call: through the outbound clients' one retry mechanism
 * (client/retry-with-policy.ts, p-retry under a policy object), with one small policy per CRM. A retry here
 * is a short one inside one attempt of the lane (a 5xx, a dropped connection, a lock, search's one-second
 * window); what the policy does not retry goes back to the lane as a `CrmError`, whose schedule (or, for a
 * rate limit, its deferral of every pending event) takes over.
 */
import { retryWithPolicy } from '../../client/retry-with-policy.js';
import { CrmError, ResponseReadError } from '../../errors.js';

/** A CRM client's retry rules. */
export interface CrmRetryPolicy {
  /** Retries after the first attempt, at most. */
  readonly retries: number;
  /** Whether `error` is worth another try now. */
  shouldRetry(error: CrmError): boolean;
  /**
   * How long to wait before the next try, `attempt` being the 1-based number of the try that failed: from
   * the server when it says (Retry-After, a rate-limit window), otherwise the policy's own backoff.
   */
  delayMs(error: CrmError, attempt: number): number;
  /**
   * Methods sent once, never retried within the call (Pipedrive's POST, a create with no upsert behind it): a
   * create the CRM made but answered with an error, or whose connection dropped after the write, would be
   * made again. The failure goes back to the lane, whose next attempt looks for the record before writing.
   */
  readonly sendOnce?: readonly string[];
}

/** `policy` for a call with `method`: no retry at all when the policy sends that method once. */
export function policyFor(policy: CrmRetryPolicy, method: string): CrmRetryPolicy {
  return policy.sendOnce?.includes(method) === true ? { ...policy, retries: 0 } : policy;
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
    return await retryWithPolicy(
      () => call(),
      {
        retries: policy.retries,
        // A CRM call's attempt is bounded by the lane's timeout (the signal), not by a budget of its own.
        retryBudgetMs: Number.POSITIVE_INFINITY,
        shouldRetry: (error) => error instanceof CrmError && policy.shouldRetry(error),
        delayMs: (error, retryIndex) => policy.delayMs(error as CrmError, retryIndex + 1),
      },
      { signal },
    );
  } catch (error) {
    if (signal.aborted && !(error instanceof CrmError && error.status !== null)) throw timedOut(error);
    throw error;
  }
}

/** The longest wait a CRM names that is waited out within the call (a one-second window: HubSpot search's SECONDLY). */
export const IN_CALL_WAIT_MS = 1_000;

/**
 * The CRMs' default retry policy within a call (HubSpot's and Pipedrive's; Pipedrive adds `sendOnce`): two
 * more tries of a 5xx, a 408, a 423 or a dropped connection after a short wait (the server's Retry-After,
 * else 200 ms × attempt, as HubSpot's SDK does), and a rate limit's wait of at most {@link IN_CALL_WAIT_MS}.
 * Longer rate-limit windows are not waited out inside the call: the lane defers every pending event of the
 * destination for them, so that every replica waits too. Salesforce's differs in kind (its concurrent-request
 * limit, exponential backoff with jitter): `salesforceRetryPolicy`.
 */
export const DEFAULT_CRM_RETRY_POLICY: CrmRetryPolicy = {
  retries: 2,
  shouldRetry(error: CrmError) {
    const { status, trouble } = error;
    if (trouble.kind === 'wait') return trouble.waitMs <= IN_CALL_WAIT_MS;
    if (trouble.kind !== 'retry') return false;
    // A malformed or oversized answer will not be different at once: the lane's schedule retries it.
    if (status === null)
      return !(error.cause instanceof ResponseReadError && error.cause.code === 'RESPONSE_TOO_LARGE');
    return status >= 500 || status === 423 || status === 408;
  },
  delayMs(error: CrmError, attempt: number) {
    const { trouble } = error;
    if (trouble.kind === 'wait') return trouble.waitMs;
    if (trouble.kind === 'retry' && trouble.retryAfterMs !== undefined) return trouble.retryAfterMs;
    return 200 * attempt;
  },
};

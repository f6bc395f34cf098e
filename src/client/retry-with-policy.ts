/**
 * The one retry mechanism of hooksync's outbound clients: p-retry, driven by a small {@link RetryPolicy}
 * per client (the service's in retry-policy.ts; a CRM's beside its adapter). The policy says what is
 * retried and how long to wait; p-retry counts the attempts and honours the caller's AbortSignal.
 *
 * p-retry 7 computes its waits from `minTimeout` and `factor` alone, so a wait the server names
 * (Retry-After, a CRM's rate window) cannot be handed to it: its own wait is set to 0 and the policy's
 * wait is taken in `shouldRetry`, which p-retry calls only once it has decided that a retry is left. The
 * wait is a global timer (sleep.ts), which tests drive with vitest's fake timers.
 */
import pRetry from 'p-retry';
import { sleep } from './sleep.js';

/** What one client retries and how long it waits between attempts. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  /** A call gives up rather than start a wait that would end more than this long (ms) after it began. */
  readonly retryBudgetMs: number;
  /** True when the same request could succeed on a later attempt. */
  shouldRetry(error: unknown): boolean;
  /** The wait in ms before retry `retryIndex` (0 for the first) after `error`: a wait the server named sets it. */
  delayMs(error: unknown, retryIndex: number): number;
}

/** Per-call knobs of {@link retryWithPolicy}. */
export interface RetryCallOptions {
  /** Cancels the call: the attempt in flight (through `attempt`'s own use of it) and any wait. */
  readonly signal?: AbortSignal | undefined;
  /** Before each wait: the failure, the wait and the retry's number (1 for the first). */
  readonly onRetry?: ((error: unknown, delayMs: number, retry: number) => void) | undefined;
  /** When the next wait would overrun the policy's retry budget: the call gives up with `error`. */
  readonly onBudgetSpent?: ((error: unknown, delayMs: number) => void) | undefined;
}

/**
 * Runs `attempt` (given its 1-based number) until it resolves, or rejects with the failure the policy does
 * not retry, the last one when the retries or the budget are spent, or the signal's reason once aborted.
 */
export async function retryWithPolicy<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  policy: RetryPolicy,
  options: RetryCallOptions = {},
): Promise<T> {
  const { signal } = options;
  const startedMs = Date.now();
  try {
    return await pRetry(attempt, {
      retries: policy.retries,
      minTimeout: 0,
      randomize: false,
      signal,
      shouldRetry: async ({ error, retriesConsumed }) => {
        if (signal?.aborted || !policy.shouldRetry(error)) return false;
        const delayMs = policy.delayMs(error, retriesConsumed);
        if (Date.now() - startedMs + delayMs > policy.retryBudgetMs) {
          options.onBudgetSpent?.(error, delayMs);
          return false;
        }
        options.onRetry?.(error, delayMs, retriesConsumed + 1);
        await sleep(delayMs, signal);
        return true;
      },
    });
  } catch (error) {
    // p-retry wraps a thrown non-Error; the caller's abort always surfaces as its own reason.
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/**
 * The memory budget for request bodies in flight (issue 15): each body reserves what it will hold before
 * it is read, and gives it back once its job is stored or refused. Over the budget, new requests are
 * answered 429 with Retry-After (the service retries 429) before their bodies are read.
 */

/** 256 MiB: room for hundreds of 250-person pages (about 0.5 MB each) at once. */
export const DEFAULT_BODY_BUDGET_BYTES = 256 * 1024 * 1024;

/** Bytes of body memory shared by every delivery of one receiver. */
export interface BodyBudget {
  /** Takes `bytes` when they fit; false (nothing taken) when they would pass the budget. */
  tryReserve(bytes: number): boolean;
  /** Gives back bytes taken earlier. */
  release(bytes: number): void;
  /** Bytes reserved right now. */
  inUse(): number;
  readonly limitBytes: number;
}

/**
 * A budget of `limitBytes` (default {@link DEFAULT_BODY_BUDGET_BYTES}); `onRefused` is called for every
 * reservation it turns down (each becomes one 429).
 */
export function createBodyBudget(limitBytes = DEFAULT_BODY_BUDGET_BYTES, onRefused?: () => void): BodyBudget {
  if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0) {
    throw new TypeError('createBodyBudget: limitBytes must be a positive integer');
  }
  let used = 0;
  return {
    limitBytes,
    tryReserve(bytes) {
      if (bytes < 0 || used + bytes > limitBytes) {
        onRefused?.();
        return false;
      }
      used += bytes;
      return true;
    },
    release(bytes) {
      used = Math.max(0, used - bytes);
    },
    inUse: () => used,
  };
}

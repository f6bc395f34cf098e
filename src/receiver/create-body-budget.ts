/**
 * The memory budget for request bodies in flight (issue 15): each body reserves what it will hold before
 * it is read, and gives it back once its job is stored or refused. A verified delivery that does not fit
 * waits in line for a while (issue 42: under a burst, waiting for room takes more deliveries than sending
 * 429s that the senders retry at once); past the wait, or with the line full, it is answered 429 with
 * Retry-After (the service retries 429) before its body is read.
 */

/** 256 MiB: room for hundreds of 250-person pages (about 0.5 MB each) at once. */
export const DEFAULT_BODY_BUDGET_BYTES = 256 * 1024 * 1024;
/**
 * Deliveries that may wait in line for room at once; past it, 429 at once. A waiting delivery holds what
 * node:http read of its body before the socket paused: one socket read, at most
 * {@link WAITING_READ_AHEAD_BYTES} (the memory plan counts it among the connections).
 */
export const DEFAULT_MAX_WAITING = 64;
/** What a delivery waiting for room may hold of its body: one socket read. */
export const WAITING_READ_AHEAD_BYTES = 64 * 1024;

/** Bytes of body memory shared by every delivery of one receiver. */
export interface BodyBudget {
  /** Takes `bytes` when they fit; false (nothing taken) when they would pass the budget. */
  tryReserve(bytes: number): boolean;
  /**
   * Takes `bytes` when they fit and no delivery waits before them; false otherwise, nothing taken and no
   * refusal counted (the caller then waits with {@link reserve}). The common case, without a promise.
   */
  admitNow(bytes: number): boolean;
  /**
   * Takes `bytes` at once when they fit and no delivery waits before them; otherwise waits in line (first
   * come, first served, so a large body is not passed over forever) up to `waitMs` for room given back.
   * Resolves false, nothing taken, when the wait ends without room, when the line is full, or when `bytes`
   * could never fit.
   */
  reserve(bytes: number, waitMs: number): Promise<boolean>;
  /** Gives back bytes taken earlier, and lets in the deliveries waiting at the head of the line that fit. */
  release(bytes: number): void;
  /** Bytes reserved right now. */
  inUse(): number;
  /** Deliveries waiting in line right now. */
  waiting(): number;
  readonly limitBytes: number;
}

/** What the budget reports. */
export interface BodyBudgetOptions {
  /** Called for every reservation it turns down (each becomes one 429). */
  onRefused?: () => void;
  /** Called when a delivery that waited in line leaves it: after how long, and whether it got its room. */
  onWaited?: (waitedMs: number, admitted: boolean) => void;
  /** Deliveries that may wait at once (default {@link DEFAULT_MAX_WAITING}). */
  maxWaiting?: number;
}

interface Waiter {
  readonly bytes: number;
  readonly since: number;
  settle(admitted: boolean): void;
}

/** A budget of `limitBytes` (default {@link DEFAULT_BODY_BUDGET_BYTES}). */
export function createBodyBudget(
  limitBytes = DEFAULT_BODY_BUDGET_BYTES,
  options: BodyBudgetOptions = {},
): BodyBudget {
  if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0) {
    throw new TypeError('createBodyBudget: limitBytes must be a positive integer');
  }
  const { onRefused, onWaited, maxWaiting = DEFAULT_MAX_WAITING } = options;
  let used = 0;
  const line: Waiter[] = [];
  const fits = (bytes: number) => bytes >= 0 && used + bytes <= limitBytes;
  const refuse = () => {
    onRefused?.();
    return false;
  };
  const admitNow = (bytes: number) => {
    if (line.length > 0 || !fits(bytes)) return false;
    used += bytes;
    return true;
  };
  /** Lets in the waiting deliveries at the head of the line that fit now. */
  const admit = () => {
    while (line.length > 0 && fits(line[0]!.bytes)) {
      const waiter = line.shift()!;
      used += waiter.bytes;
      waiter.settle(true);
    }
  };
  return {
    limitBytes,
    tryReserve(bytes) {
      if (!fits(bytes)) return refuse();
      used += bytes;
      return true;
    },
    admitNow,
    reserve(bytes, waitMs) {
      if (admitNow(bytes)) return Promise.resolve(true);
      if (waitMs <= 0 || line.length >= maxWaiting || !(bytes >= 0 && bytes <= limitBytes)) {
        return Promise.resolve(refuse());
      }
      return new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          bytes,
          since: performance.now(),
          settle(admitted) {
            clearTimeout(timer);
            onWaited?.(performance.now() - waiter.since, admitted);
            resolve(admitted || refuse());
          },
        };
        const timer = setTimeout(() => {
          line.splice(line.indexOf(waiter), 1);
          waiter.settle(false);
          // The head may have been the one too large to fit: those behind it may fit now.
          admit();
        }, waitMs);
        timer.unref();
        line.push(waiter);
      });
    },
    release(bytes) {
      used = Math.max(0, used - bytes);
      admit();
    },
    inUse: () => used,
    waiting: () => line.length,
  };
}

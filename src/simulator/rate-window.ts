/**
 * The simulator's rate limiting (Limits part): a sliding log per limited subject. A request is admitted
 * when fewer than `perInterval` admitted requests lie in the last `intervalSeconds`; refused requests are
 * not counted. Retry-After is rounded up to whole seconds, so that a retry after it finds a free slot
 * (unless another client takes it first).
 */
import type { RateLimit } from '../contract/rate-limit.js';

/** Why a request was refused: the limit it hit and how long until a slot frees. */
export interface RateRefusal {
  readonly limit: RateLimit;
  /** Whole seconds until the oldest admitted request leaves the window (at least 1). */
  readonly retryAfterSeconds: number;
  /** Requests left in the window: 0 when refused. */
  readonly remaining: number;
}

/** The sliding log of one subject (the account, or one key). */
export class RateWindow {
  readonly limit: RateLimit;
  /** Admission times (ms), ascending. */
  readonly #admitted: number[] = [];

  constructor(limit: RateLimit) {
    this.limit = limit;
  }

  #prune(nowMs: number): void {
    const intervalMs = this.limit.intervalSeconds * 1000;
    // A request admitted at t counts while t + interval > now: at exactly t + interval its slot is free.
    while (this.#admitted.length > 0 && this.#admitted[0]! + intervalMs <= nowMs) this.#admitted.shift();
  }

  /** The refusal a request at `nowMs` would meet, or undefined when there is room. */
  check(nowMs: number): RateRefusal | undefined {
    this.#prune(nowMs);
    if (this.#admitted.length < this.limit.perInterval) return undefined;
    const freeAtMs = this.#admitted[0]! + this.limit.intervalSeconds * 1000;
    return {
      limit: this.limit,
      retryAfterSeconds: Math.max(1, Math.ceil((freeAtMs - nowMs) / 1000)),
      remaining: 0,
    };
  }

  /** Counts an admitted request. */
  admit(nowMs: number): void {
    this.#admitted.push(nowMs);
  }

  /** Forgets every admitted request. */
  clear(): void {
    this.#admitted.length = 0;
  }
}

/**
 * Admits a request only when every window has room (the account's and the key's), and counts it in all
 * of them; otherwise returns the refusal with the longest wait, so that its Retry-After is truthful.
 */
export function admitRequest(windows: readonly RateWindow[], nowMs: number): RateRefusal | undefined {
  let worst: RateRefusal | undefined;
  for (const window of windows) {
    const refusal = window.check(nowMs);
    if (refusal && (worst === undefined || refusal.retryAfterSeconds > worst.retryAfterSeconds))
      worst = refusal;
  }
  if (worst) return worst;
  for (const window of windows) window.admit(nowMs);
  return undefined;
}

/** The account's window and one window per key, as the limited endpoints apply them. */
export interface AccountRateLimiter {
  /** Admits a request made with `apiKey` (whose own rate is `keyRate`) at `nowMs`, or says why not. */
  admit(apiKey: string, keyRate: RateLimit, nowMs: number): RateRefusal | undefined;
  /** Forgets every admitted request. */
  clear(): void;
}

/** A limiter for an account allowed `accountRate`, each key further held to its own per_interval. */
export function createAccountRateLimiter(accountRate: RateLimit): AccountRateLimiter {
  const account = new RateWindow(accountRate);
  const keys = new Map<string, RateWindow>();
  return {
    admit(apiKey, keyRate, nowMs) {
      let window = keys.get(apiKey);
      if (window === undefined) {
        window = new RateWindow(keyRate);
        keys.set(apiKey, window);
      }
      return admitRequest([account, window], nowMs);
    },
    clear() {
      account.clear();
      keys.clear();
    },
  };
}

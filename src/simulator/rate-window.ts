/**
 * The simulator's rate limiting (Limits part): a sliding log per limited subject (contract/rate-window.ts,
 * the window hooksync paces itself with). A request is admitted when fewer than `perInterval` admitted
 * requests lie in the last `intervalSeconds`; refused requests are not counted. Retry-After is rounded up to whole seconds, so that a retry after it finds a free slot
 * (unless another client takes it first).
 */
import type { RateLimit } from '../contract/rate-limit.js';
import { RateWindow as SharedRateWindow } from '../contract/rate-window.js';

/** Why a request was refused: the limit it hit and how long until a slot frees. */
export interface RateRefusal {
  readonly limit: RateLimit;
  /** Whole seconds until the oldest admitted request leaves the window (at least 1). */
  readonly retryAfterSeconds: number;
  /** Requests left in the window: 0 when refused. */
  readonly remaining: number;
}

/** The service's window for one subject (the account, or one key): the shared sliding log, in its terms. */
export class RateWindow {
  readonly limit: RateLimit;
  readonly #window: SharedRateWindow;

  constructor(limit: RateLimit) {
    this.limit = limit;
    this.#window = new SharedRateWindow({
      requests: limit.perInterval,
      perMs: limit.intervalSeconds * 1000,
    });
  }

  /** The refusal a request at `nowMs` would meet, or undefined when there is room. */
  check(nowMs: number): RateRefusal | undefined {
    const waitMs = this.#window.waitMs(nowMs);
    if (waitMs === 0) return undefined;
    return { limit: this.limit, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), remaining: 0 };
  }

  /** Counts an admitted request. */
  admit(nowMs: number): void {
    this.#window.record(nowMs);
  }

  /** Forgets every admitted request. */
  clear(): void {
    this.#window.clear();
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

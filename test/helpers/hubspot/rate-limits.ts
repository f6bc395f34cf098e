/**
 * HubSpot's request limits per token (shared/docs/hubspot-api.md §5, §2): a rolling 10-second window and a daily
 * window that resets at midnight UTC for every call but search, and search's own per-second window. Time comes
 * from the injected clock, so tests move it instead of waiting.
 */
import type { RateLimitPolicy } from './errors.js';

const TEN_SECONDS_MS = 10_000;
const ONE_SECOND_MS = 1_000;
const DAY_MS = 86_400_000;

/** Limits of one token. */
export interface RateLimitConfig {
  readonly tenSecondly: number;
  readonly daily: number;
  readonly searchPerSecond: number;
  readonly now: () => number;
}

/** An admitted call (with the headers of §5 for non-search calls) or a refused one. */
export type Admission =
  | { admitted: true; headers: Record<string, string> }
  | { admitted: false; policy: RateLimitPolicy; headers: Record<string, string>; retryAfterSeconds: number };

/**
 * The windows of one token. Every admitted call counts in both; a call refused by the 10-second window counts in
 * the daily one only; a call refused by the daily window changes nothing.
 */
export class RateWindows {
  readonly #config: RateLimitConfig;
  readonly #burst: number[] = [];
  readonly #search: number[] = [];
  #day = Number.NaN;
  #dailyUsed = 0;

  constructor(config: RateLimitConfig) {
    this.#config = config;
  }

  /** Counts a non-search call if both windows have room. */
  admitApi(): Admission {
    const nowMs = this.#config.now();
    this.#roll(nowMs);
    const { tenSecondly, daily } = this.#config;
    if (this.#dailyUsed >= daily) {
      const nextMidnight = (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
      return {
        admitted: false,
        policy: 'DAILY',
        headers: this.#headers(),
        retryAfterSeconds: Math.ceil((nextMidnight - nowMs) / 1000),
      };
    }
    if (this.#burst.length >= tenSecondly) {
      // A refused call is still a request of the day ("error responses shouldn't exceed 5% of your total daily
      // requests", usage guidelines); it does not hold the 10-second window shut longer.
      this.#dailyUsed += 1;
      const freedAt = (this.#burst[0] ?? nowMs) + TEN_SECONDS_MS;
      return {
        admitted: false,
        policy: 'TEN_SECONDLY_ROLLING',
        headers: this.#headers(),
        retryAfterSeconds: Math.max(1, Math.ceil((freedAt - nowMs) / 1000)),
      };
    }
    this.#burst.push(nowMs);
    this.#dailyUsed += 1;
    return { admitted: true, headers: this.#headers() };
  }

  /** Counts a search call if its per-second window has room; search answers carry no limit headers (§2). */
  admitSearch(): Admission {
    const nowMs = this.#config.now();
    while (this.#search.length > 0 && (this.#search[0] ?? 0) <= nowMs - ONE_SECOND_MS) this.#search.shift();
    if (this.#search.length >= this.#config.searchPerSecond) {
      return { admitted: false, policy: 'SECONDLY', headers: {}, retryAfterSeconds: 1 };
    }
    this.#search.push(nowMs);
    return { admitted: true, headers: {} };
  }

  /** The headers of §5, as a non-search answer carries them now. */
  currentHeaders(): Record<string, string> {
    this.#roll(this.#config.now());
    return this.#headers();
  }

  #roll(nowMs: number): void {
    while (this.#burst.length > 0 && (this.#burst[0] ?? 0) <= nowMs - TEN_SECONDS_MS) this.#burst.shift();
    const day = Math.floor(nowMs / DAY_MS);
    if (day !== this.#day) {
      this.#day = day;
      this.#dailyUsed = 0;
    }
  }

  #headers(): Record<string, string> {
    const { tenSecondly, daily } = this.#config;
    return {
      'X-HubSpot-RateLimit-Max': String(tenSecondly),
      'X-HubSpot-RateLimit-Remaining': String(Math.max(0, tenSecondly - this.#burst.length)),
      'X-HubSpot-RateLimit-Interval-Milliseconds': String(TEN_SECONDS_MS),
      'X-HubSpot-RateLimit-Daily': String(daily),
      'X-HubSpot-RateLimit-Daily-Remaining': String(Math.max(0, daily - this.#dailyUsed)),
    };
  }
}

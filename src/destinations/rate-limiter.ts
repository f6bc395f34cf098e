/**
 * A destination's optional rate limit: a token bucket of `requests` tokens refilled over `perMs`.
 */

/** Takes tokens for attempts; says how long until the next one when it has none. */
export class RateLimiter {
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  constructor(rate: { readonly requests: number; readonly perMs: number }, now: () => number) {
    this.#capacity = rate.requests;
    this.#perMs = rate.perMs;
    this.#now = now;
    this.#tokens = rate.requests;
    this.#at = now();
  }

  /** Takes up to `wanted` tokens; returns how many it took. */
  take(wanted: number): number {
    this.#refill();
    const taken = Math.min(wanted, Math.floor(this.#tokens));
    this.#tokens -= taken;
    return taken;
  }

  /** Ms until one token is available (0 when one is). */
  waitMs(): number {
    this.#refill();
    if (this.#tokens >= 1) return 0;
    return Math.ceil(((1 - this.#tokens) * this.#perMs) / this.#capacity);
  }

  #refill(): void {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#at);
    this.#at = now;
    this.#tokens = Math.min(this.#capacity, this.#tokens + (elapsed * this.#capacity) / this.#perMs);
  }
}

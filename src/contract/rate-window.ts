/**
 * The one rate window hooksync paces itself with against someone else's limit (the service's, a CRM's,
 * a destination's) and the simulator enforces the service's with: a sliding log of request times, in which
 * a request fits when fewer than `requests` lie in the last `perMs`. Unlike a token bucket (a full bucket
 * plus its refill lets twice the rate through in some window), no window of `perMs`, rolling or fixed,
 * ever holds more than `requests`. Pure: the caller says what time it is.
 */

/** A rate: at most `requests` in any `perMs` milliseconds (`"90/10s"` in configuration files). */
export interface WindowRate {
  readonly requests: number;
  readonly perMs: number;
}

/** Throws TypeError unless `rate` is a positive integer count over a positive finite span. */
export function assertWindowRate(rate: WindowRate): void {
  const { requests, perMs } = rate ?? {};
  if (!Number.isSafeInteger(requests) || requests < 1) {
    throw new TypeError(`a rate's requests must be a positive integer, got ${String(requests)}`);
  }
  if (typeof perMs !== 'number' || !Number.isFinite(perMs) || perMs <= 0) {
    throw new TypeError(`a rate's span must be a positive number of ms, got ${String(perMs)}`);
  }
}

/** The sliding log of one limited subject. */
export class RateWindow {
  readonly rate: WindowRate;
  /** Request times (ms), ascending; those that left the window are dropped as time passes. */
  readonly #times: number[];

  /** A window for `rate`, optionally holding earlier request times (another window's, when a rate changes). */
  constructor(rate: WindowRate, times: readonly number[] = []) {
    assertWindowRate(rate);
    this.rate = Object.freeze({ requests: rate.requests, perMs: rate.perMs });
    this.#times = [...times].sort((a, b) => a - b);
  }

  /** The request times still held, ascending. */
  get times(): readonly number[] {
    return this.#times;
  }

  /** Requests in the window at `nowMs`. */
  count(nowMs: number): number {
    this.#prune(nowMs);
    return this.#times.length;
  }

  /**
   * The earliest time at which one more request fits: `nowMs` when one does now. `held` requests not yet
   * in the log (in flight, to be recorded when they end) count as in the window until then: Infinity when
   * they alone fill it.
   */
  roomAtMs(nowMs: number, held = 0): number {
    this.#prune(nowMs);
    const { requests, perMs } = this.rate;
    if (this.#times.length + held < requests) return nowMs;
    if (held >= requests) return Number.POSITIVE_INFINITY;
    // Room once all but requests - held - 1 of the logged requests have left the window.
    return Math.max(nowMs, this.#times[this.#times.length - (requests - held)]! + perMs);
  }

  /** Ms until one more request fits (0 when one does now). */
  waitMs(nowMs: number, held = 0): number {
    return this.roomAtMs(nowMs, held) - nowMs;
  }

  /** Records a request at `nowMs` when it fits; whether it did. */
  take(nowMs: number): boolean {
    if (this.roomAtMs(nowMs) > nowMs) return false;
    this.record(nowMs);
    return true;
  }

  /** Records a request at `atMs`, whether or not it fits. */
  record(atMs: number): void {
    let index = this.#times.length;
    while (index > 0 && this.#times[index - 1]! > atMs) index -= 1;
    this.#times.splice(index, 0, atMs);
  }

  /** Forgets every request. */
  clear(): void {
    this.#times.length = 0;
  }

  #prune(nowMs: number): void {
    // A request at t counts while t + perMs > now: at exactly t + perMs its place is free.
    let gone = 0;
    while (gone < this.#times.length && this.#times[gone]! + this.rate.perMs <= nowMs) gone += 1;
    if (gone > 0) this.#times.splice(0, gone);
  }
}

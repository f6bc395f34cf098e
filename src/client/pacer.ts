/**
 * The client's pacing budget: a token bucket in which each token comes back one interval (plus a small
 * margin) after the request that spent it has finished. The service counts a request when it arrives,
 * which is before we see its answer, so no window of `intervalSeconds` on the service's clock can hold
 * more than `perInterval` of our requests (Limits part), however the network delays them.
 */
import { assertRateLimit, type RateLimit } from '../contract/rate-limit.js';
import { RateWindow } from '../contract/rate-window.js';
import { sleep as realSleep, type Sleep } from './sleep.js';

/** What the pacer has done so far, for logs and metrics. */
export interface PacingStats {
  /** Requests let through (each one spent a token). */
  readonly requestsSent: number;
  /** 429 answers reported by the client. */
  readonly rateLimitedResponses: number;
  /** Requests that had to wait for a token. */
  readonly waits: number;
  /** Total time those requests waited, in ms. */
  readonly waitedMs: number;
  /** The rates in force; a request needs a token from every one of them. */
  readonly limits: readonly RateLimit[];
  /** No token is handed out before this time (ms since the epoch), after a 429; 0 when not blocked. */
  readonly blockedUntilMs: number;
}

/** Knobs of a {@link Pacer}. */
export interface PacerOptions {
  /** Rates to obey together; at least one. */
  limits: readonly RateLimit[];
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
  /** Wait (default a real timer). */
  sleep?: Sleep;
  /** Told each timed wait for a token, in ms, as it starts (for a debug log line). */
  onWait?: (waitMs: number) => void;
}

/** A spent token; `release()` when the request has finished (answered or failed), exactly once. */
export interface PacerPermit {
  release(): void;
}

/** Extra wait added to each interval against clock skew and rounding: 1% of the interval, at least 50 ms. */
export const DEFAULT_PACING_MARGIN_RATIO = 0.01;
export const DEFAULT_PACING_MARGIN_MIN_MS = 50;

interface Waiter {
  readonly enqueuedAtMs: number;
  readonly resolve: (permit: PacerPermit) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** How long a token stays spent after its request finished, margin included. */
export function pacingWindowMs(limit: RateLimit): number {
  const intervalMs = limit.intervalSeconds * 1000;
  return intervalMs + Math.max(DEFAULT_PACING_MARGIN_MIN_MS, intervalMs * DEFAULT_PACING_MARGIN_RATIO);
}

/**
 * One pacing budget shared by every concurrent caller of a client. Callers `acquire()` a permit before
 * each request and are served strictly in arrival order, so a burst waits its turn instead of collecting
 * 429s; they `release()` it when the request is over.
 */
export class Pacer {
  readonly #now: () => number;
  readonly #sleep: Sleep;
  readonly #onWait: ((waitMs: number) => void) | undefined;
  #limits: readonly RateLimit[] = [];
  /**
   * One window per rate, of its pacing span, logging when each request finished: a token comes back one
   * span after its request ends. Requests in flight are not in the windows yet: they count as held.
   */
  #windows: readonly RateWindow[] = [];
  #inFlight = 0;
  readonly #queue: Waiter[] = [];
  #pumping = false;
  #wake = new AbortController();
  #blockedUntilMs = 0;
  #requestsSent = 0;
  #rateLimitedResponses = 0;
  #waits = 0;
  #waitedMs = 0;

  constructor(options: PacerOptions) {
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? realSleep;
    this.#onWait = options.onWait;
    this.setLimits(options.limits);
  }

  /** Replaces the rates in force; waiting callers are re-timed at once. */
  setLimits(limits: readonly RateLimit[]): void {
    if (!Array.isArray(limits) || limits.length === 0) throw new TypeError('limits needs at least one rate');
    for (const limit of limits) assertRateLimit(limit);
    this.#limits = Object.freeze(
      limits.map((l) => Object.freeze({ perInterval: l.perInterval, intervalSeconds: l.intervalSeconds })),
    );
    // The new windows start from the finished requests the longest old one still holds.
    const history = this.#windows.reduce<readonly number[]>(
      (longest, window) => (window.times.length > longest.length ? window.times : longest),
      [],
    );
    this.#windows = this.#limits.map(
      (limit) => new RateWindow({ requests: limit.perInterval, perMs: pacingWindowMs(limit) }, history),
    );
    this.#wakeUp();
  }

  /** The rates in force. */
  get limits(): readonly RateLimit[] {
    return this.#limits;
  }

  /** Hands out no token before `timeMs` (the service said its window resets then). */
  blockUntil(timeMs: number): void {
    if (Number.isFinite(timeMs) && timeMs > this.#blockedUntilMs) this.#blockedUntilMs = timeMs;
  }

  /** Records a 429 and drains the bucket for `retryAfterMs` (default: the longest window in force). */
  noteRateLimited(retryAfterMs?: number): void {
    this.#rateLimitedResponses += 1;
    this.blockUntil(this.#now() + (retryAfterMs ?? Math.max(...this.#limits.map(pacingWindowMs))));
  }

  /** A snapshot of the counters and the rates in force. */
  get stats(): PacingStats {
    return {
      requestsSent: this.#requestsSent,
      rateLimitedResponses: this.#rateLimitedResponses,
      waits: this.#waits,
      waitedMs: this.#waitedMs,
      limits: this.#limits,
      blockedUntilMs: this.#blockedUntilMs > this.#now() ? this.#blockedUntilMs : 0,
    };
  }

  /**
   * Resolves with a permit when the caller may send one request. Rejects with the signal's reason if
   * `signal` aborts while waiting; the caller's place in the queue is given up.
   */
  acquire(signal?: AbortSignal): Promise<PacerPermit> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#now();
    if (this.#queue.length === 0 && this.#readyAtMs(now) <= now) return Promise.resolve(this.#spend());
    return new Promise<PacerPermit>((resolve, reject) => {
      const waiter: Waiter = {
        enqueuedAtMs: now,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.#queue.indexOf(waiter);
          if (index >= 0) this.#queue.splice(index, 1);
          reject(signal?.reason);
          this.#wakeUp();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
      void this.#pump();
    });
  }

  /** The earliest time at which every rate (and any 429 block) allows one more request; Infinity = on a release. */
  #readyAtMs(now: number): number {
    let readyAt = Math.max(now, this.#blockedUntilMs);
    for (const window of this.#windows) readyAt = Math.max(readyAt, window.roomAtMs(now, this.#inFlight));
    return readyAt;
  }

  #spend(): PacerPermit {
    this.#inFlight += 1;
    this.#requestsSent += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight -= 1;
        const endMs = this.#now();
        for (const window of this.#windows) window.record(endMs);
        this.#wakeUp();
      },
    };
  }

  #wakeUp(): void {
    this.#wake.abort();
    this.#wake = new AbortController();
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length > 0) {
        const now = this.#now();
        const readyAt = this.#readyAtMs(now);
        if (readyAt <= now) {
          const waiter = this.#queue.shift()!;
          waiter.signal?.removeEventListener('abort', waiter.onAbort);
          if (now > waiter.enqueuedAtMs) {
            this.#waits += 1;
            this.#waitedMs += now - waiter.enqueuedAtMs;
          }
          waiter.resolve(this.#spend());
          continue;
        }
        const { signal } = this.#wake;
        if (readyAt === Number.POSITIVE_INFINITY) {
          // Every token is out with a request in flight: nothing to time, wait for a release.
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          continue;
        }
        try {
          this.#onWait?.(readyAt - now);
          await this.#sleep(readyAt - now, signal);
        } catch {
          // Woken early: rates changed, a token came back or a waiter left; re-time the head of the queue.
        }
      }
    } finally {
      this.#pumping = false;
    }
  }
}

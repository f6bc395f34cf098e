/**
 * The service's rate-limit answer (Limits part): the 429 message and the X-RateLimit-* headers.
 */

export const RATE_LIMIT_HEADERS = Object.freeze({
  limit: 'x-ratelimit-limit',
  interval: 'x-ratelimit-interval',
  remaining: 'x-ratelimit-remaining',
  retryAfter: 'retry-after',
});

/** The 429 message: `Too many requests. Try again after <seconds> seconds`. */
export function formatRateLimitMessage(seconds: number): string {
  return `Too many requests. Try again after ${seconds} seconds`;
}

const MESSAGE_PATTERN = /Try again after (\d+(?:\.\d+)?) seconds?/i;

/** The seconds named in a 429 message, or undefined when it names none. */
export function parseRateLimitMessage(message: string): number | undefined {
  const match = MESSAGE_PATTERN.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** What a response's X-RateLimit-* headers say; each field undefined when absent or not a number. */
export interface RateLimitInfo {
  limit: number | undefined;
  intervalSeconds: number | undefined;
  remaining: number | undefined;
  retryAfterSeconds: number | undefined;
}

/** Reads the rate-limit headers from any header getter (fetch Headers, node's IncomingHttpHeaders). */
export function readRateLimitHeaders(get: (name: string) => string | null | undefined): RateLimitInfo {
  const num = (name: string): number | undefined => {
    const raw = get(name);
    if (raw === null || raw === undefined || raw.trim() === '') return undefined;
    const n = Number(raw);
    return Number.isFinite(n) && n >= 0 ? n : undefined;
  };
  return {
    limit: num(RATE_LIMIT_HEADERS.limit),
    intervalSeconds: num(RATE_LIMIT_HEADERS.interval),
    remaining: num(RATE_LIMIT_HEADERS.remaining),
    retryAfterSeconds: num(RATE_LIMIT_HEADERS.retryAfter),
  };
}

/** A rate: at most `perInterval` requests in any `intervalSeconds` window. */
export interface RateLimit {
  readonly perInterval: number;
  readonly intervalSeconds: number;
}

/** Throws TypeError unless `limit` is a positive integer count over a positive finite interval. */
export function assertRateLimit(limit: RateLimit): void {
  const { perInterval, intervalSeconds } = limit ?? {};
  if (!Number.isSafeInteger(perInterval) || perInterval < 1) {
    throw new TypeError(`perInterval must be a positive integer, got ${String(perInterval)}`);
  }
  if (typeof intervalSeconds !== 'number' || !Number.isFinite(intervalSeconds) || intervalSeconds <= 0) {
    throw new TypeError(`intervalSeconds must be a positive number, got ${String(intervalSeconds)}`);
  }
}

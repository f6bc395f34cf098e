/**
 * When a failed attempt is tried again: the destination's schedule (default about a day: 5 s, 30 s,
 * 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h) with ±10 % jitter, so that events that failed together
 * do not all come back together; never sooner than the destination's Retry-After. Past the schedule's
 * end the event fails (dead-lettered) until it is replayed.
 */

/** Share of each wait drawn at random on either side (0.1: 90 % to 110 %). */
export const RETRY_JITTER = 0.1;
/** The longest Retry-After honoured: a destination cannot park an event for more than a day per attempt. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** The wait before the next attempt, or undefined when the schedule is spent. */
export function planRetry(options: {
  /** Attempts made, including the one that just failed. */
  readonly attempts: number;
  readonly scheduleMs: readonly number[];
  readonly retryAfterMs?: number | undefined;
  /** A number in [0, 1) (default Math.random). */
  readonly random?: () => number;
}): number | undefined {
  const base = options.scheduleMs[options.attempts - 1];
  if (base === undefined) return undefined;
  const random = options.random ?? Math.random;
  const jittered = Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
  const asked = Math.min(options.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return Math.max(jittered, asked);
}

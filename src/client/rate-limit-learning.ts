/**
 * Which rates the pacer obeys once the client has learned the key's own rate (from the key list or the
 * X-RateLimit-* headers): the learned rate together with the configured ceiling (by default the account's
 * 50 per 60 s, Limits part), so the stricter of the two holds in every window.
 */
import type { ApiKeyList } from '../contract/api-keys.js';
import type { RateLimit } from '../contract/rate-limit.js';

/** Where learnRateLimit found the rate it adopted. */
export type RateLimitSource = 'current-key' | 'master-key' | 'unchanged';

/** Outcome of `client.learnRateLimit()`. */
export interface LearnedRateLimit {
  readonly source: RateLimitSource;
  /** The key's rate as listed; undefined when unchanged. */
  readonly learned: RateLimit | undefined;
  /** The rates the pacer obeys from now on. */
  readonly limits: readonly RateLimit[];
  /** Why nothing was adopted, when `source` is `unchanged`. */
  readonly reason?: string;
}

/** True when `a` allows no more than `b` in any window: fewer requests over a window at least as long. */
function isAtLeastAsStrict(a: RateLimit, b: RateLimit): boolean {
  return a.perInterval <= b.perInterval && a.intervalSeconds >= b.intervalSeconds;
}

/** The rates to obey together: one when it implies the other, both otherwise (e.g. 100/120 s and 50/60 s). */
export function combineRateLimits(ceiling: RateLimit, learned: RateLimit | undefined): RateLimit[] {
  if (learned === undefined || isAtLeastAsStrict(ceiling, learned)) return [ceiling];
  if (isAtLeastAsStrict(learned, ceiling)) return [learned];
  return [ceiling, learned];
}

/**
 * The rate of the key the client uses, from the key list: its own record when the list shows the key
 * itself, else the master key's record (listing needs the master key, so the caller holds it even when
 * the list names keys by an identifier other than the secret). Undefined when neither is listed.
 */
export function pickKeyRate(
  list: ApiKeyList,
  apiKey: string,
): { source: 'current-key' | 'master-key'; rate: RateLimit } | undefined {
  const own = list.api_keys.find((record) => record.api_key === apiKey);
  const record = own ?? list.api_keys.find((r) => r.master);
  if (record === undefined) return undefined;
  const rate = { perInterval: record.per_interval, intervalSeconds: record.interval_seconds };
  if (!Number.isSafeInteger(rate.perInterval) || rate.perInterval < 1 || !(rate.intervalSeconds > 0))
    return undefined;
  return { source: own ? 'current-key' : 'master-key', rate };
}

/**
 * The org's API allocation: a rolling 24-hour count shared by every integration, shown on every answer as
 * `Sforce-Limit-Info: api-usage=N/M` (shared/docs/salesforce-api.md §5). A destination may use up to
 * `max_share` of it: it pauses when the calls it is about to make would leave less than `1 − max_share` of the
 * allocation to the org's other work, and resumes once the rolling window has freed enough.
 */

/** Default share of the org's allocation a destination may use. */
export const DEFAULT_MAX_SHARE = 0.5;

/** Calls used in the rolling 24 h and the org's allocation. */
export interface ApiUsage {
  readonly used: number;
  readonly max: number;
}

/** `api-usage=10018/100000` (other entries, such as `per-app-api-usage`, are ignored); undefined when absent or malformed. */
export function parseLimitInfo(header: string | null | undefined): ApiUsage | undefined {
  const match = /(?:^|[,;\s])api-usage=(\d+)\/(\d+)(?:$|[,;\s])/.exec(header ?? '');
  if (match === null) return undefined;
  const used = Number(match[1]);
  const max = Number(match[2]);
  return Number.isSafeInteger(used) && Number.isSafeInteger(max) && max > 0 ? { used, max } : undefined;
}

/**
 * Whether `calls` more calls keep the org's remaining allocation at or above `1 − maxShare` of it. Unknown
 * usage (no answer read yet) allows them: the first answer tells.
 */
export function allocationAllows(usage: ApiUsage | undefined, maxShare: number, calls = 1): boolean {
  if (!(maxShare > 0 && maxShare <= 1)) throw new TypeError('maxShare must be in (0, 1]');
  if (!Number.isInteger(calls) || calls < 0) throw new TypeError('calls must be a non-negative integer');
  if (usage === undefined) return true;
  const remainingAfter = usage.max - usage.used - calls;
  return remainingAfter >= (1 - maxShare) * usage.max;
}

/** Calls the destination may still make now under `maxShare` (0 when paused). */
export function callsLeft(usage: ApiUsage | undefined, maxShare: number): number | undefined {
  if (usage === undefined) return undefined;
  return Math.max(0, Math.floor(usage.max * maxShare - usage.used));
}

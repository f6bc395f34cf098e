/**
 * A watch's request plan for one cycle: launch's plan (launch/build-request.ts) with each relative date
 * of `set` resolved to the cycle's day, and each row's key, which is taken over the request with those
 * dates as written, so that a row keeps its memory from one day to the next.
 */
import { createRequestPlanFromEntries, type RequestPlan } from '../launch/build-request.js';
import { rowKey } from '../launch/row-key.js';
import type { WatchDefinition } from './load-watches.js';

const DAY_MS = 86_400_000;

const WATCH_PART_NAMES = { map: 'map', set: 'set', carry: 'carry', pages: 'pages' } as const;

/** YYYY-MM-DD of the UTC day `days` before `nowMs`. */
export function daysBefore(nowMs: number, days: number): string {
  return new Date(nowMs - days * DAY_MS).toISOString().slice(0, 10);
}

/** The plan a cycle starting at `nowMs` uses; throws TypeError as launch's plan does. */
export function planForCycle(
  watch: WatchDefinition,
  nowMs: number,
  webhookUrl: string | undefined,
): RequestPlan {
  const set = (watch.entries.set ?? []).map(([field, value]) => {
    const days = watch.relativeDates.get(field);
    return [field, days === undefined ? value : daysBefore(nowMs, days)] as const;
  });
  return createRequestPlanFromEntries(
    watch.operation,
    { ...watch.entries, set, webhookUrl },
    WATCH_PART_NAMES,
  );
}

/** The key of a watched row: a launch row's key, relative dates as written (`-30d`), not as resolved. */
export function watchRowKey(watch: WatchDefinition, request: Readonly<Record<string, unknown>>): string {
  if (watch.relativeDates.size === 0) return rowKey(watch.operation.name, request);
  const keyed: Record<string, unknown> = { ...request };
  for (const [field, days] of watch.relativeDates) keyed[field] = `-${days}d`;
  return rowKey(watch.operation.name, keyed);
}

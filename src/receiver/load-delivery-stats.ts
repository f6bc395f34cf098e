/**
 * Deliveries per hour and outcome for the status page's chart, read from the delivery_stats table
 * (one row per ISO hour bucket and outcome, counted by the receiver's createDeliveryStats).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import type { DeliveryOutcome } from './delivery-answer.js';

/** Outcomes in the order the chart stacks them (bottom first): the good news first, trouble on top. */
export const CHART_OUTCOMES: readonly DeliveryOutcome[] = Object.freeze([
  'stored',
  'updated',
  'duplicate',
  'replay',
  'fetched',
  'refused',
  'retry_later',
  'overloaded',
] satisfies DeliveryOutcome[]);

/** Hours the chart covers, the current one included. */
export const DEFAULT_CHART_HOURS = 24;

const HOUR_MS = 60 * 60 * 1000;

/** Deliveries of one hour. */
export interface HourlyDeliveries {
  /** Start of the hour, ISO 8601 UTC. */
  readonly hour: string;
  /** Count per outcome; outcomes with no deliveries are absent. */
  readonly counts: Readonly<Record<string, number>>;
  readonly total: number;
}

/** The chart's data: every hour of the window (empty hours included), oldest first. */
export interface DeliveryStats {
  readonly hours: readonly HourlyDeliveries[];
  /** Outcomes to show, in stacking order: {@link CHART_OUTCOMES}, then any other outcome seen. */
  readonly outcomes: readonly string[];
  /** Totals over the window per outcome. */
  readonly totals: Readonly<Record<string, number>>;
}

/** The ISO hour bucket that holds `ms`. */
export function hourBucketOf(ms: number): string {
  return new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString();
}

/** Reads the last `hours` hour buckets up to and including the one holding `nowMs`. */
export async function loadDeliveryStats(
  db: Kysely<Database>,
  nowMs: number,
  hours: number = DEFAULT_CHART_HOURS,
): Promise<DeliveryStats> {
  if (!Number.isSafeInteger(hours) || hours < 1) throw new TypeError('hours must be a positive integer');
  const last = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const buckets = Array.from({ length: hours }, (_, i) =>
    new Date(last - (hours - 1 - i) * HOUR_MS).toISOString(),
  );
  const rows = await db
    .selectFrom('delivery_stats')
    .select(['hour', 'outcome', 'count'])
    .where('hour', '>=', buckets[0] ?? '')
    .where('hour', '<', new Date(last + HOUR_MS).toISOString())
    .execute();

  const byHour = new Map<string, Record<string, number>>(buckets.map((b) => [b, {}]));
  const totals: Record<string, number> = {};
  for (const row of rows) {
    // Buckets written by another writer may lack the milliseconds; normalise before matching.
    const parsed = Date.parse(row.hour);
    const counts = Number.isNaN(parsed) ? undefined : byHour.get(hourBucketOf(parsed));
    const n = Number(row.count);
    if (counts === undefined || !Number.isFinite(n) || n <= 0) continue;
    counts[row.outcome] = (counts[row.outcome] ?? 0) + n;
    totals[row.outcome] = (totals[row.outcome] ?? 0) + n;
  }
  const known = new Set<string>(CHART_OUTCOMES);
  const others = Object.keys(totals)
    .filter((o) => !known.has(o))
    .sort();
  return {
    hours: buckets.map((hour) => {
      const counts = byHour.get(hour) ?? {};
      return { hour, counts, total: Object.values(counts).reduce((a, b) => a + b, 0) };
    }),
    outcomes: [...CHART_OUTCOMES, ...others],
    totals,
  };
}

/**
 * Counts deliveries per hour and outcome in memory and adds them to delivery_stats every few seconds (and
 * on close), so the status page's chart costs the request path nothing but a map update. Counts lost in a
 * crash are statistics, not data: the jobs themselves are committed before their answer.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../storage/database.js';

/** How often counts are written, in ms. */
export const DEFAULT_STATS_FLUSH_MS = 5000;

/** The recorder the receiver feeds. */
export interface DeliveryStats {
  count(outcome: string): void;
  /** Writes what is pending now. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is pending. */
  close(): Promise<void>;
}

export function createDeliveryStats(deps: {
  db: Kysely<Database>;
  now?: () => number;
  flushMs?: number;
  logger?: Logger;
}): DeliveryStats {
  const now = deps.now ?? Date.now;
  let pending = new Map<string, number>();
  let writing: Promise<void> = Promise.resolve();
  let shownHourStart = Number.NaN;
  let shownHour = '';

  async function write(batch: Map<string, number>): Promise<void> {
    if (batch.size === 0) return;
    const rows = [...batch].map(([key, count]) => {
      const [hour, outcome] = key.split('|') as [string, string];
      return { hour, outcome, count };
    });
    try {
      await deps.db
        .insertInto('delivery_stats')
        .values(rows)
        .onConflict((oc) =>
          oc.columns(['hour', 'outcome']).doUpdateSet((eb) => ({
            count: eb('delivery_stats.count', '+', eb.ref('excluded.count')),
          })),
        )
        .execute();
    } catch (error) {
      deps.logger?.warn({ err: error }, 'could not write delivery counts; keeping them for the next flush');
      for (const [key, count] of batch) pending.set(key, (pending.get(key) ?? 0) + count);
    }
  }

  function flush(): Promise<void> {
    const batch = pending;
    pending = new Map();
    writing = writing.then(() => write(batch));
    return writing;
  }

  const timer = setInterval(() => void flush(), deps.flushMs ?? DEFAULT_STATS_FLUSH_MS);
  timer.unref();

  return {
    count(outcome) {
      // The hour's text is formatted once per hour, not per delivery (issue 31).
      const hourStart = Math.floor(now() / 3_600_000) * 3_600_000;
      if (hourStart !== shownHourStart) {
        shownHourStart = hourStart;
        shownHour = new Date(hourStart).toISOString();
      }
      const key = `${shownHour}|${outcome}`;
      pending.set(key, (pending.get(key) ?? 0) + 1);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

/**
 * The watches' metrics on /metrics, read from the database on each scrape (watch_cycles, watch_changes), so
 * that they are true whichever process ran the checks: rows checked, changes by kind, dollars spent.
 */
import type { Kysely } from 'kysely';
import { Counter, type Registry } from 'prom-client';
import type { Database } from '../storage/database.js';
import { loadWatchTotals, type WatchTotals } from './watch-store.js';

/** Registers the watches' counters on `registry`. */
export function registerWatchMetrics(registry: Registry, db: Kysely<Database>): void {
  let totals: Promise<WatchTotals> | undefined;
  // One read serves the three counters of a scrape.
  const read = (): Promise<WatchTotals> => {
    totals ??= loadWatchTotals(db).finally(() => setTimeout(() => (totals = undefined), 0));
    return totals;
  };
  new Counter({
    name: 'hooksync_watch_rows_checked_total',
    help: 'Rows a watch checked, every cycle (from the database: all processes)',
    labelNames: ['watch'],
    registers: [registry],
    async collect() {
      const { checked } = await read();
      this.reset();
      for (const [watch, count] of checked) this.inc({ watch }, count);
    },
  });
  new Counter({
    name: 'hooksync_watch_changes_total',
    help: 'Changes a watch found, by kind (baseline, moved, left, returned, title, new_person)',
    labelNames: ['watch', 'change'],
    registers: [registry],
    async collect() {
      const { changes } = await read();
      this.reset();
      for (const { watch, change, count } of changes) this.inc({ watch, change }, count);
    },
  });
  new Counter({
    name: 'hooksync_watch_spent_usd_total',
    help: "Dollars a watch's checks cost (usage.total_usd), every cycle",
    labelNames: ['watch'],
    registers: [registry],
    async collect() {
      const { usd } = await read();
      this.reset();
      for (const [watch, amount] of usd) this.inc({ watch }, amount);
    },
  });
}

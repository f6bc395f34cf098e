/**
 * Prometheus metrics of the destinations, per destination: events by outcome, backlog, age of the oldest
 * pending event, attempt latency. Registered on the receiver's registry; no label ever holds a secret or
 * a URL, only the destination's name.
 */

import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Database } from '../storage/database.js';
import { readCounters } from './destination-counters.js';

/** Metric handles the dispatcher updates. */
export interface DestinationMetrics {
  /** delivered, retried, failed, paused, superseded. */
  readonly events: Counter<'destination' | 'outcome'>;
  readonly attemptSeconds: Histogram<'destination'>;
}

/** Pending events per destination, and the oldest one's creation time. */
export async function pendingSummary(db: Kysely<Database>) {
  const rows = await db
    .selectFrom('outbox_events')
    .select((eb) => ['destination', eb.fn.countAll().as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'pending')
    .groupBy('destination')
    .execute();
  return new Map(
    rows.map((row) => [
      row.destination,
      { pending: Number(row.pending), oldest: row.oldest as string | null },
    ]),
  );
}

/** Registers the destinations' metrics on `registry`; gauges read the outbox on each scrape. */
export function createDestinationMetrics(
  registry: Registry,
  options: { db: Kysely<Database>; names: readonly string[]; now: () => number },
): DestinationMetrics {
  const { db, names, now } = options;
  let summary: Promise<Awaited<ReturnType<typeof pendingSummary>>> | undefined;
  // One query serves both gauges of a scrape.
  const read = () => {
    summary ??= pendingSummary(db).finally(() => setTimeout(() => (summary = undefined), 0));
    return summary;
  };
  new Gauge({
    name: 'hooksync_destination_backlog',
    help: 'Events waiting to be delivered (or being delivered), per destination',
    labelNames: ['destination'],
    registers: [registry],
    async collect() {
      const pending = await read();
      for (const name of names) this.set({ destination: name }, pending.get(name)?.pending ?? 0);
    },
  });
  new Gauge({
    name: 'hooksync_destination_oldest_pending_seconds',
    help: 'Age of the oldest event not yet delivered, per destination (0 when none)',
    labelNames: ['destination'],
    registers: [registry],
    async collect() {
      const pending = await read();
      for (const name of names) {
        const oldest = pending.get(name)?.oldest;
        this.set({ destination: name }, oldest ? Math.max(0, (now() - Date.parse(oldest)) / 1000) : 0);
      }
    },
  });
  new Gauge({
    name: 'hooksync_destination_counter',
    help: "A destination's running totals, all replicas' work: a HubSpot one's records (companies_created, contacts_failed, ...), api_calls, rate_limited_<policy>, daily_remaining",
    labelNames: ['destination', 'counter'],
    registers: [registry],
    async collect() {
      this.reset();
      const counters = await readCounters(db);
      for (const name of names) {
        for (const [counter, value] of Object.entries(counters.get(name) ?? {}))
          this.set({ destination: name, counter }, value);
      }
    },
  });
  return {
    events: new Counter({
      name: 'hooksync_destination_events_total',
      help: 'Destination events by outcome: delivered, retried, failed, paused, superseded',
      labelNames: ['destination', 'outcome'],
      registers: [registry],
    }),
    attemptSeconds: new Histogram({
      name: 'hooksync_destination_attempt_seconds',
      help: 'Time of one delivery attempt, per destination',
      labelNames: ['destination'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}

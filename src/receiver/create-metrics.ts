/**
 * The receiver's Prometheus metrics, in a registry of their own (no global state, so that several
 * receivers can live in one process, as in tests).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { BodyBudgetOptions } from './create-body-budget.js';
import { lingeringConnections, MAX_LINGERING } from './linger-without-reading.js';

/** Metric handles shared by the receiver and the key-set cache (reconcile's are server/reconcile-metrics.ts). */
export interface ReceiverMetrics {
  readonly registry: Registry;
  /** Deliveries by outcome: stored, updated, duplicate, replay, refused, retry_later, overloaded, ... */
  readonly deliveries: Counter<'outcome' | 'reason'>;
  readonly verifySeconds: Histogram;
  readonly commitSeconds: Histogram;
  readonly keySetRefreshes: Counter<'result'>;
  readonly quarantineSize: Gauge;
  /** Jobs whose normalized rows the normalizer wrote after their acknowledgement. */
  readonly normalized: Counter;
  readonly normalizationBacklog: Gauge;
  /** Body bytes reserved by deliveries in flight (the memory budget's use). */
  readonly bodyBytesInFlight: Gauge;
  /** Connections answered before their body was read, half-closed and lingering for the sender to read it. */
  readonly lingeringConnections: Gauge;
  /** Refusals over the per-reason quarantine rate: counted, not stored. */
  readonly quarantineSkipped: Counter<'reason'>;
  /** Quarantined bodies emptied to keep the quarantine under its byte budget. */
  readonly quarantineBodiesDropped: Counter;
  /** Body bytes the quarantine holds, as of its last trim. */
  readonly quarantineBodyBytes: Gauge;
  /** Finder calls for unsigned callbacks, by result (fetched, budget_spent, pending, failed). */
  readonly unsignedFetches: Counter<'result'>;
  /** Bytes of memory each budget may use, from the memory ceiling (issue 29; set once at start). */
  readonly memoryBudget: Gauge<'budget'>;
  /** Deliveries answered 429 because a memory budget was full, by budget. */
  readonly memoryRefusals: Counter<'budget'>;
  /** Verified deliveries waiting for room in the body budget right now. */
  readonly bodyBudgetWaiting: Gauge;
  /** How long deliveries that had to wait for room in the body budget waited, by outcome. */
  readonly bodyBudgetWaitSeconds: Histogram<'outcome'>;
}

/**
 * Creates the metrics. On each scrape, `quarantineCount` reports the quarantine's size and `keySetFetches`
 * the key-set cache's own fetch counters (so the cache stays free of metrics code).
 */
export function createMetrics(
  options: {
    quarantineCount?: () => Promise<number>;
    /** Jobs acknowledged whose normalized rows are not written yet. */
    normalizationBacklog?: () => Promise<number>;
    keySetFetches?: () => { fetches: number; failures: number };
    /** Body bytes reserved right now (the receiver's memory budget). */
    bodyBytesInFlight?: () => number;
    /** Deliveries waiting for room in that budget right now. */
    bodyBudgetWaiting?: () => number;
    defaults?: boolean;
  } = {},
): ReceiverMetrics {
  const registry = new Registry();
  if (options.defaults !== false) collectDefaultMetrics({ register: registry, prefix: 'hooksync_' });
  const { quarantineCount, keySetFetches, normalizationBacklog, bodyBytesInFlight, bodyBudgetWaiting } =
    options;
  const reported = { success: 0, failure: 0 };
  return {
    registry,
    deliveries: new Counter({
      name: 'hooksync_deliveries_total',
      help: 'Webhook deliveries by outcome (and refusal reason)',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
    }),
    verifySeconds: new Histogram({
      name: 'hooksync_verify_seconds',
      help: 'Time to verify a callback token (header, key, signature, claims), before its body is read',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25],
      registers: [registry],
    }),
    commitSeconds: new Histogram({
      name: 'hooksync_commit_seconds',
      help: 'Time from handing a verified job to the store to its durable commit',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    keySetRefreshes: new Counter({
      name: 'hooksync_jwks_refreshes_total',
      help: 'Key-set fetches by result',
      labelNames: ['result'],
      registers: [registry],
      collect() {
        if (!keySetFetches) return;
        const { fetches, failures } = keySetFetches();
        const success = fetches - failures;
        if (success > reported.success) this.inc({ result: 'success' }, success - reported.success);
        if (failures > reported.failure) this.inc({ result: 'failure' }, failures - reported.failure);
        reported.success = Math.max(reported.success, success);
        reported.failure = Math.max(reported.failure, failures);
      },
    }),
    quarantineSize: new Gauge({
      name: 'hooksync_quarantine_rows',
      help: 'Refused callbacks kept in quarantine',
      registers: [registry],
      async collect() {
        if (quarantineCount) this.set(await quarantineCount());
      },
    }),
    normalized: new Counter({
      name: 'hooksync_normalized_total',
      help: 'Stored jobs whose normalized rows were written after their acknowledgement',
      registers: [registry],
    }),
    normalizationBacklog: new Gauge({
      name: 'hooksync_normalization_backlog',
      help: 'Acknowledged jobs whose normalized rows are not written yet (the normalization queue)',
      registers: [registry],
      async collect() {
        if (normalizationBacklog) this.set(await normalizationBacklog());
      },
    }),
    bodyBytesInFlight: new Gauge({
      name: 'hooksync_body_bytes_in_flight',
      help: 'Body bytes reserved by deliveries in flight (out of the memory budget)',
      registers: [registry],
      collect() {
        if (bodyBytesInFlight) this.set(bodyBytesInFlight());
      },
    }),
    lingeringConnections: new Gauge({
      name: 'hooksync_lingering_connections',
      help: `Connections answered (429) before their body was read, half-closed and lingering for the sender to read the answer (at most ${MAX_LINGERING} in the process)`,
      registers: [registry],
      collect() {
        this.set(lingeringConnections());
      },
    }),
    quarantineSkipped: new Counter({
      name: 'hooksync_quarantine_skipped_total',
      help: 'Refusals over the per-reason quarantine rate, counted but not stored',
      labelNames: ['reason'],
      registers: [registry],
    }),
    quarantineBodiesDropped: new Counter({
      name: 'hooksync_quarantine_bodies_dropped_total',
      help: 'Quarantined bodies emptied to stay under the quarantine byte budget (rows stay)',
      registers: [registry],
    }),
    quarantineBodyBytes: new Gauge({
      name: 'hooksync_quarantine_body_bytes',
      help: 'Stored (compressed) body bytes held in the quarantine, as of its last trim',
      registers: [registry],
    }),
    memoryBudget: new Gauge({
      name: 'hooksync_memory_budget_bytes',
      help: 'Bytes of memory each budget may use under the memory ceiling (ceiling, bodies, bodies_admitted: body bytes admitted at once, prepared_jobs, normalization_queue, answers)',
      labelNames: ['budget'],
      registers: [registry],
    }),
    memoryRefusals: new Counter({
      name: 'hooksync_memory_refusals_total',
      help: 'Deliveries answered 429 (before their bodies were read) because a memory budget was full',
      labelNames: ['budget'],
      registers: [registry],
    }),
    bodyBudgetWaiting: new Gauge({
      name: 'hooksync_body_budget_waiting',
      help: 'Verified deliveries waiting for room in the body budget before their body is read',
      registers: [registry],
      collect() {
        if (bodyBudgetWaiting) this.set(bodyBudgetWaiting());
      },
    }),
    bodyBudgetWaitSeconds: new Histogram({
      name: 'hooksync_body_budget_wait_seconds',
      help: 'How long deliveries that found the body budget full waited for room, by outcome (admitted, refused: answered 429)',
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
      registers: [registry],
    }),
    unsignedFetches: new Counter({
      name: 'hooksync_unsigned_fetches_total',
      help: 'Finder calls for unsigned callbacks by result (fetched, budget_spent, pending, failed)',
      labelNames: ['result'],
      registers: [registry],
    }),
  };
}

/**
 * The body budget's reports as metrics: each refusal counted, each wait for room timed. `metrics` is read
 * when a report comes, so the budget may be made before them.
 */
export function bodyBudgetReports(metrics: () => ReceiverMetrics | undefined): BodyBudgetOptions {
  return {
    onRefused: () => metrics()?.memoryRefusals.inc({ budget: 'bodies' }),
    onWaited: (waitedMs, admitted) =>
      metrics()?.bodyBudgetWaitSeconds.observe(
        { outcome: admitted ? 'admitted' : 'refused' },
        waitedMs / 1000,
      ),
  };
}

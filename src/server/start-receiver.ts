/**
 * Everything `hooksync serve` runs, as a list of parts: the database (migrated), the key set, the job
 * store, the delivery counts, then the parts beside receiving ({@link SERVE_PARTS}: the dispatcher, the
 * purge of expired replay records, reconcile's schedule), and last the HTTP receiver. Each part is started
 * by a module of its own (parts/) and closed in reverse order, on close or when a later part fails to
 * start. Used by the CLI, the demo, the tests and the benchmarks, so that they all run the same receiver.
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { createClient } from '../client/create-client.js';
import { checkServeConfig } from '../config/check-serve-config.js';
import type { HooksyncConfig } from '../config/load-config.js';
import type { ConfiguredDestination } from '../destinations/load-destinations.js';
import { createBodyBudget } from '../receiver/create-body-budget.js';
import { createDeliveryStats, type DeliveryStats } from '../receiver/create-delivery-stats.js';
import { createMetrics, type ReceiverMetrics } from '../receiver/create-metrics.js';
import type { Receiver } from '../receiver/create-receiver.js';
import { type DeliveryLimits, resolveDeliveryLimits } from '../receiver/delivery-limits.js';
import type { JobStore } from '../storage/job-store/job-store.js';
import { countQueued } from '../storage/job-store/normalization-queue.js';
import type { HooksyncDatabase } from '../storage/open-database.js';
import { openMigratedDatabase } from '../storage/open-migrated-database.js';
import { countQuarantine } from '../storage/quarantine/list-quarantine.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { WatchDefinition } from '../watches/load-watches.js';
import type { WatchClock } from '../watches/watch-clock.js';
import type { KeySetCache } from '../webhooks/key-set-cache.js';
import { applyMemoryPlan, planMemory } from './memory-plan.js';
import { createHttpReceiver } from './parts/create-http-receiver.js';
import { createPartStack, type ServePart } from './parts/serve-part.js';
import { startDeliveryPurge } from './parts/start-delivery-purge.js';
import { startDispatch } from './parts/start-dispatch.js';
import { startJobStore } from './parts/start-job-store.js';
import { startKeySet } from './parts/start-key-set.js';
import { startReconcileSchedule } from './parts/start-reconcile-schedule.js';
import { startWatchesPart } from './parts/start-watches-part.js';
import { registerReconcileMetrics } from './reconcile-metrics.js';

export { DELIVERY_PURGE_INTERVAL_MS } from './parts/start-delivery-purge.js';

/**
 * The long-running parts of serve beside receiving, in starting order: each starts after the store and
 * before the receiver listens, and closes after the receiver has stopped. A new one is a module exporting
 * a {@link ServePart}, added here.
 */
export const SERVE_PARTS: readonly ServePart[] = [
  startDispatch,
  startDeliveryPurge,
  startReconcileSchedule,
  startWatchesPart,
];

/** Knobs beyond the config, mostly for tests and benchmarks. */
export interface StartReceiverOptions {
  config: HooksyncConfig;
  logger?: Logger;
  /**
   * Clock in epoch ms for token times (iat, exp) and stored timestamps (default Date.now). The key set's
   * refresh and cooldown timers keep the real clock.
   */
  now?: () => number;
  fetch?: typeof globalThis.fetch;
  bodyLimitBytes?: number;
  /** Time for a request's headers, and for the whole request, in ms (defaults 10 s and 60 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Overrides of the delivery limits (budgets, rates, deadlines), over the config's. */
  limits?: Partial<DeliveryLimits>;
  toleranceSeconds?: number;
  /** Least ms between key-set refetches for unknown kids (default 30 s). */
  unknownKidCooldownMs?: number;
  /** Overrides the config's port (0 picks a free one). */
  port?: number;
  /** Also run reconcile on this cron schedule (croner syntax, e.g. "0 3 * * *"); runs never overlap. */
  reconcileCron?: string;
  /** Grace period of those runs, as `reconcile --older-than` (default 15 min). */
  reconcileOlderThanMs?: number;
  /**
   * Where jobs are written: `worker` (default), a thread of its own that commits and then derives the
   * normalized rows; `main`, this thread, rows in the storing transaction (an in-memory database, whose
   * connection no other thread can share, always uses `main`).
   */
  storeThread?: 'worker' | 'main';
  /**
   * The store worker's script (default: the built store-worker.js beside the job store module). Code run
   * from the TypeScript sources (tests) passes the built one: worker threads run JavaScript only.
   */
  storeWorkerUrl?: URL;
  /**
   * The destinations (loadDestinations) the dispatcher delivers to; their routing is recorded before the
   * first job is received. Default none: the routing is cleared, so no new events are written.
   */
  destinations?: readonly ConfiguredDestination[];
  /** The watches (loadWatches) to run: each checks its rows every cycle, under a lease of its own. */
  watches?: readonly WatchDefinition[];
  /** The watches' clock (tests); default the real one. */
  watchClock?: WatchClock;
  /**
   * Tracing (startTelemetry, issue 40): deliveries, destination attempts, watch cycles and reconcile runs as
   * spans, outbound calls as client spans. Absent, the default, nothing is traced. The caller shuts it down.
   */
  telemetry?: Telemetry | undefined;
}

/** A receiver that is listening. */
export interface RunningReceiver {
  readonly url: string;
  readonly database: HooksyncDatabase;
  readonly keys: KeySetCache;
  readonly metrics: ReceiverMetrics;
  readonly stats: DeliveryStats;
  readonly receiver: Receiver;
  /** The job store; `settled()` waits until every acknowledged job has its normalized rows. */
  readonly store: JobStore;
  /** Drains in-flight deliveries, stops the parts beside receiving, then closes the store, key set and database. */
  close(): Promise<void>;
}

/** Checks the config, starts every part and listens. */
export async function startReceiver(options: StartReceiverOptions): Promise<RunningReceiver> {
  const { config } = options;
  const logger = options.logger ?? pino({ level: 'silent' });
  const now = options.now ?? Date.now;
  const settings = checkServeConfig(config, options);
  // The budgets below, sized from the memory ceiling (issue 29); the config's own settings win.
  const memory = planMemory(config.memoryCeiling.bytes);
  const { telemetry } = options;
  const fetch = telemetry ? telemetry.tracedFetch(options.fetch) : options.fetch;
  const client =
    settings.account === undefined
      ? undefined
      : createClient({
          ...settings.account,
          ...memory.clientLimits,
          ...config.clientLimits,
          logger,
          ...(fetch ? { fetch } : {}),
          paths: {
            ...(config.searchContactPath !== undefined
              ? { searchContactLaunch: config.searchContactPath }
              : {}),
            ...(config.jobChangePath !== undefined ? { jobChangeLaunch: config.jobChangePath } : {}),
          },
        });
  const limits = {
    ...memory.receiverLimits,
    ...config.receiverLimits,
    ...(options.bodyLimitBytes !== undefined ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
    ...options.limits,
  };
  let metrics: ReceiverMetrics | undefined;
  const budget = createBodyBudget(resolveDeliveryLimits(limits).bodyBudgetBytes, () =>
    metrics?.memoryRefusals.inc({ budget: 'bodies' }),
  );

  const parts = createPartStack();
  let started = false;
  try {
    const database = parts.add(await openMigratedDatabase(config.databaseUrl, { logger }));
    const { db } = database;
    const { keys } = parts.add(
      await startKeySet({
        url: settings.jwksUrl,
        logger,
        fetch,
        unknownKidCooldownMs: options.unknownKidCooldownMs,
      }),
    );
    metrics = createMetrics({
      keySetFetches: () => keys.stats(),
      bodyBytesInFlight: () => budget.inUse(),
      quarantineCount: () => countQuarantine(db),
      normalizationBacklog: () => countQueued(db),
    });
    // Read from the recorded runs: they count runs from cron and the CLI too.
    registerReconcileMetrics(metrics.registry, db, { logger });
    applyMemoryPlan(memory, metrics);
    if (telemetry !== undefined) {
      telemetry.exportMetrics(metrics.registry);
      // Closed before the database: the last spans and readings leave while the gauges can still be read.
      parts.add({ close: () => telemetry.flush() });
    }
    const { store, ready: storeReady } = parts.add(
      await startJobStore({
        memory,
        databaseUrl: config.databaseUrl,
        database,
        thread: options.storeThread ?? 'worker',
        workerUrl: options.storeWorkerUrl,
        metrics,
        logger,
        now,
      }),
    );
    const stats = parts.add(createDeliveryStats({ db, now, logger }));
    const shared = { config, options, logger, now, database, metrics, store, client };
    const receiver = await createHttpReceiver(shared, { keys, stats, budget, limits, storeReady });
    for (const start of SERVE_PARTS) {
      parts.add(await start({ ...shared, receiving: () => receiver.inFlight() }));
    }
    const url = await receiver.listen(options.port ?? config.port, config.host);
    parts.add(receiver);
    started = true;
    return { url, database, keys, metrics, stats, receiver, store, close: parts.close };
  } finally {
    if (!started) await parts.close();
  }
}

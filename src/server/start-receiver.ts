/**
 * Everything `hooksync serve` runs, as a list of parts: the database (migrated), the key set, the job
 * store, the delivery counts, then the parts beside receiving ({@link SERVE_PARTS}: the dispatcher, the
 * purge of expired replay records, reconcile's schedule), and last the HTTP receiver. Each part is started
 * by a module of its own (parts/) and closed in reverse order, on close or when a later part fails to
 * start. Used by the CLI, the demo, the tests and the benchmarks, so that they all run the same receiver.
 */
import { pino } from 'pino';
import { createClient } from '../client/create-client.js';
import { checkServeConfig, describeMissingAccount } from '../config/check-serve-config.js';
import { createBodyBudget } from '../receiver/create-body-budget.js';
import { createDeliveryStats, type DeliveryStats } from '../receiver/create-delivery-stats.js';
import { bodyBudgetReports, createMetrics, type ReceiverMetrics } from '../receiver/create-metrics.js';
import type { Receiver } from '../receiver/create-receiver.js';
import { resolveDeliveryLimits } from '../receiver/delivery-limits.js';
import type { JobStore } from '../storage/job-store/job-store.js';
import { countQueued } from '../storage/job-store/normalization-queue.js';
import type { HooksyncDatabase } from '../storage/open-database.js';
import { openMigratedDatabase } from '../storage/open-migrated-database.js';
import { countQuarantine } from '../storage/quarantine/list-quarantine.js';
import type { KeySetCache } from '../webhooks/key-set-cache.js';
import { applyMemoryPlan, planAnswerLimits, planMemory } from './memory-plan.js';
import { createHttpReceiver } from './parts/create-http-receiver.js';
import { createJobsStoredSignal } from './parts/jobs-stored-signal.js';
import { createPartStack, type ServePart } from './parts/serve-part.js';
import { startDeliveryPurge } from './parts/start-delivery-purge.js';
import { startDispatch } from './parts/start-dispatch.js';
import { startJobStore } from './parts/start-job-store.js';
import { startKeySet } from './parts/start-key-set.js';
import { startReconcileSchedule } from './parts/start-reconcile-schedule.js';
import { startWatchesPart } from './parts/start-watches-part.js';
import { registerReconcileMetrics } from './reconcile-metrics.js';
import type { StartReceiverOptions } from './start-receiver-options.js';

export { DELIVERY_PURGE_INTERVAL_MS } from './parts/start-delivery-purge.js';
export type { StartReceiverOptions } from './start-receiver-options.js';

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
  // Said once at start: a serve without the account runs, but the parts that reach the finders do not.
  const missingAccount = describeMissingAccount(config);
  if (missingAccount !== undefined) logger.warn(missingAccount);
  // The budgets below, sized from the memory ceiling (issue 29); the config's own settings win.
  const memory = planMemory(config.memoryCeiling.bytes);
  const clientLimits = { ...memory.clientLimits, ...config.clientLimits };
  // One budget for every answer from outside: the service's, the CRMs', a watch source's pages (issue 43).
  const answers = planAnswerLimits(memory, clientLimits);
  const { telemetry } = options;
  const fetch = telemetry ? telemetry.tracedFetch(options.fetch) : options.fetch;
  const client =
    settings.account === undefined
      ? undefined
      : createClient({
          ...settings.account,
          ...clientLimits,
          answerBudget: answers.budget,
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
  const budget = createBodyBudget(
    resolveDeliveryLimits(limits).bodyBudgetBytes,
    bodyBudgetReports(() => metrics),
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
      bodyBudgetWaiting: () => budget.waiting(),
      quarantineCount: () => countQuarantine(db),
      normalizationBacklog: () => countQueued(db),
    });
    // Read from the recorded runs: they count runs from cron and the CLI too.
    registerReconcileMetrics(metrics.registry, db, { logger });
    applyMemoryPlan(memory, metrics);
    const jobsStored = createJobsStoredSignal();
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
        jobsStored,
      }),
    );
    const stats = parts.add(createDeliveryStats({ db, now, logger }));
    const shared = { config, options, logger, now, database, metrics, store, client, answers, jobsStored };
    const receiver = await createHttpReceiver(shared, {
      keys,
      stats,
      budget,
      limits,
      storeReady,
      connections: memory.connectionLimits,
    });
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

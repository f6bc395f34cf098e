/**
 * Everything `hooksync serve` runs, wired together: database (migrated), key set, job store, delivery
 * handler, HTTP server. Used by the CLI, the demo, the tests and the benchmarks, so that they all run
 * the same receiver. Whatever it opens, its close() closes, in reverse order.
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { createClient } from '../client/create-client.js';
import { type HooksyncConfig, joinUrl } from '../config/load-config.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../contract/limits.js';
import { createDispatcher } from '../destinations/create-dispatcher.js';
import { createDestinationMetrics } from '../destinations/destination-metrics.js';
import type { ConfiguredDestination } from '../destinations/load-destinations.js';
import { openDispatchDatabase } from '../destinations/open-dispatch-database.js';
import { ConfigError } from '../errors.js';
import { createLauncher } from '../launch/create-launcher.js';
import { createDeliveryStats, type DeliveryStats } from '../receiver/create-delivery-stats.js';
import { createMetrics, type ReceiverMetrics } from '../receiver/create-metrics.js';
import { createReceiver, type Receiver } from '../receiver/create-receiver.js';
import type { DeliveryLimits } from '../receiver/delivery-limits.js';
import {
  createDeliveryHandler,
  type DeliveryHandler,
  type FinderFetch,
} from '../receiver/handle-delivery.js';
import { runReconcile } from '../reconcile/run-reconcile.js';
import { scheduleReconcile } from '../reconcile/schedule-reconcile.js';
import { purgeExpiredDeliveries } from '../storage/job-queries.js';
import { createJobStore, type JobStore } from '../storage/job-store/job-store.js';
import { countQueued } from '../storage/job-store/normalization-queue.js';
import { startWorkerJobStore } from '../storage/job-store/worker-job-store.js';
import { type HooksyncDatabase, isDatabaseUp } from '../storage/open-database.js';
import { openMigratedDatabase } from '../storage/open-migrated-database.js';
import { countQuarantine } from '../storage/quarantine/list-quarantine.js';
import type { WatchDefinition } from '../watches/load-watches.js';
import { SYSTEM_CLOCK, type WatchClock } from '../watches/run-cycle.js';
import { startWatches } from '../watches/start-watches.js';
import { registerWatchMetrics } from '../watches/watch-metrics.js';
import { createKeySetCache, type KeySetCache } from '../webhooks/key-set-cache.js';
import { countAuthRefusals } from './admin-access/count-auth-refusals.js';
import { createAuthThrottle } from './admin-access/create-auth-throttle.js';
import { MIN_ADMIN_TOKEN_LENGTH } from './admin-access/min-admin-token-length.js';
import { createAdminRouter } from './create-admin-router.js';
import { createStatusPageRouter } from './status-page/create-status-page-router.js';

/** How often delivery records of expired tokens are deleted. */
export const DELIVERY_PURGE_INTERVAL_MS = 10 * 60_000;

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
  /** Drains in-flight deliveries and deferred work, then closes the store, key set and database. */
  close(): Promise<void>;
}

/** Opens, migrates, loads the key set and listens. */
export async function startReceiver(options: StartReceiverOptions): Promise<RunningReceiver> {
  const { config } = options;
  const logger = options.logger ?? pino({ level: 'silent' });
  const now = options.now ?? Date.now;
  if (config.adminToken !== undefined && config.adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `HOOKSYNC_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (make one with: openssl rand -hex 32)`,
    );
  }
  if (config.jwksUrl === undefined) {
    throw new ConfigError(
      'serve needs HOOKSYNC_JWKS_URL or HOOKSYNC_API_BASE_URL to fetch the webhook key set',
    );
  }
  const client =
    config.apiBaseUrl !== undefined && config.apiKey !== undefined
      ? createClient({
          baseUrl: config.apiBaseUrl,
          apiKey: config.apiKey,
          logger,
          ...(options.fetch ? { fetch: options.fetch } : {}),
          paths: {
            ...(config.searchContactPath !== undefined
              ? { searchContactLaunch: config.searchContactPath }
              : {}),
            ...(config.jobChangePath !== undefined ? { jobChangeLaunch: config.jobChangePath } : {}),
          },
        })
      : undefined;
  if (options.reconcileCron !== undefined && client === undefined) {
    throw new ConfigError(
      '--reconcile-cron needs HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY to reach the finders',
    );
  }
  if ((options.watches?.length ?? 0) > 0 && client === undefined) {
    throw new ConfigError('watches need HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY to launch their checks');
  }
  if (config.unsigned === 'fetch' && client === undefined) {
    throw new ConfigError(
      'HOOKSYNC_UNSIGNED=fetch needs HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY to reach the finders',
    );
  }

  const database = await openMigratedDatabase(config.databaseUrl, { logger });
  const closers: Array<() => Promise<void> | void> = [() => database.close()];
  let closing: Promise<void> | undefined;
  const closeAll = (): Promise<void> => {
    closing ??= (async () => {
      for (const close of [...closers].reverse()) await close();
    })();
    return closing;
  };
  try {
    const keys = createKeySetCache({
      url: config.jwksUrl,
      logger,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.unknownKidCooldownMs !== undefined
        ? { unknownKidCooldownMs: options.unknownKidCooldownMs }
        : {}),
    });
    try {
      await keys.load();
    } catch (error) {
      // Not fatal: deliveries get 500 (retried by the sender) and /readyz says not ready until keys load.
      logger.warn({ err: error }, 'webhook key set not loaded at start; will keep trying');
    }
    keys.start();
    closers.push(() => keys.stop());

    const { db } = database;
    let handler: DeliveryHandler | undefined;
    const metrics = createMetrics({
      keySetFetches: () => keys.stats(),
      bodyBytesInFlight: () => handler?.budget.inUse() ?? 0,
      quarantineCount: () => countQuarantine(db),
      normalizationBacklog: () => countQueued(db),
    });
    const onWorker = (options.storeThread ?? 'worker') === 'worker' && config.databaseUrl !== ':memory:';
    const workerStore = onWorker
      ? await startWorkerJobStore({
          databaseUrl: config.databaseUrl,
          now,
          logger,
          onNormalized: ({ normalized }) => metrics.normalized.inc(normalized),
          ...(options.storeWorkerUrl ? { workerUrl: options.storeWorkerUrl } : {}),
        })
      : undefined;
    const store: JobStore = workerStore ?? createJobStore({ database, logger, now });
    closers.push(() => store.close());
    // Stopped before the store and the database close; what it has not delivered stays in the outbox.
    const destinations = options.destinations ?? [];
    const dispatch = await openDispatchDatabase(config.databaseUrl, database);
    if (dispatch.owned) closers.push(() => dispatch.database.close());
    let receiving: Receiver | undefined;
    const dispatcher = createDispatcher({
      receiving: () => receiving?.inFlight() ?? 0,
      database: dispatch.database,
      destinations,
      logger,
      now,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      metrics: createDestinationMetrics(metrics.registry, {
        db,
        names: destinations.map((d) => d.name),
        now,
      }),
    });
    await dispatcher.sync();
    dispatcher.start();
    closers.push(() => dispatcher.stop());

    // A jti only guards replays while its token can still verify: past exp + tolerance it is dead weight.
    const toleranceMs = (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS) * 1000;
    const purgeTimer = setInterval(() => {
      purgeExpiredDeliveries(db, now() - toleranceMs).catch((error: unknown) =>
        logger.warn({ err: error }, 'could not purge expired delivery records'),
      );
    }, DELIVERY_PURGE_INTERVAL_MS);
    purgeTimer.unref();
    closers.push(() => clearInterval(purgeTimer));
    const stats = createDeliveryStats({ db, now, logger });
    closers.push(() => stats.close());
    const fetchFromFinder: FinderFetch | undefined = client
      ? async (kind, jobId) => {
          const response =
            kind === 'job_change'
              ? await client.jobChange.find(jobId)
              : await client.searchContact.find(jobId);
          return { raw: response.raw, job: response.job };
        }
      : undefined;
    handler = createDeliveryHandler({
      keys,
      store,
      unsigned: config.unsigned,
      ...(fetchFromFinder ? { fetchFromFinder } : {}),
      database,
      limits: {
        ...config.receiverLimits,
        ...(options.bodyLimitBytes !== undefined ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
        ...options.limits,
      },
      now,
      ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {}),
      logger,
      metrics,
      stats,
    });
    if (options.reconcileCron !== undefined && client !== undefined) {
      const controller = new AbortController();
      let current: Promise<unknown> | undefined;
      const schedule = scheduleReconcile({
        cron: options.reconcileCron,
        logger,
        run: () => {
          const run = runReconcile({
            db,
            client,
            store,
            logger,
            now,
            signal: controller.signal,
            onRecovered: (kind) => metrics.reconcileRecovered.inc({ kind }),
          });
          current = run;
          return run;
        },
      });
      logger.info(
        { cron: options.reconcileCron, next: schedule.nextRunAt()?.toISOString() },
        'reconcile scheduled',
      );
      // On close: no new run, the current one stops after its entry in flight (what is done stays done).
      closers.push(async () => {
        schedule.stop();
        controller.abort();
        await current?.catch(() => undefined);
      });
    }
    registerWatchMetrics(metrics.registry, db);
    if (client !== undefined && (options.watches?.length ?? 0) > 0) {
      const watches = startWatches({
        watches: options.watches ?? [],
        db,
        // The launcher stores each answer like any launch (ledger, job store), through serve's paced client.
        launcher: createLauncher({ client, store, db, logger: logger.child({}, { level: 'warn' }) }),
        logger,
        clock: options.watchClock ?? SYSTEM_CLOCK,
        webhookUrl: config.publicUrl === undefined ? undefined : joinUrl(config.publicUrl, '/webhooks'),
      });
      closers.push(() => watches.close());
    }
    const receiver = createReceiver({
      handleDelivery: handler,
      ...(options.headersTimeoutMs !== undefined ? { headersTimeoutMs: options.headersTimeoutMs } : {}),
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      metrics,
      logger,
      isReady: async () => {
        const databaseUp = await isDatabaseUp(db);
        const keysLoaded = keys.stats().ready;
        const storeUp = workerStore?.ready() ?? true;
        return {
          ready: databaseUp && keysLoaded && storeUp,
          checks: { database: databaseUp, keys: keysLoaded, store: storeUp },
        };
      },
      extend: (app) => {
        // One throttle for both surfaces: a guess at the token counts the same wherever it is made.
        const throttle = createAuthThrottle({ logger, now, onRefused: countAuthRefusals(metrics.registry) });
        const adminNow = () => new Date(now());
        app.use(createAdminRouter({ db, adminToken: config.adminToken, now: adminNow, logger, throttle }));
        app.use(
          createStatusPageRouter({
            db,
            adminToken: config.adminToken,
            now: adminNow,
            logger,
            throttle,
            sessionSeconds: config.uiSessionMinutes * 60,
          }),
        );
      },
    });
    receiving = receiver;
    const url = await receiver.listen(options.port ?? config.port, config.host);
    closers.push(() => receiver.close());
    return { url, database, keys, metrics, stats, receiver, store, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * serve's HTTP side, built but not yet listening: the delivery handler on `/webhooks` (with finder fetches
 * when an account is configured), readiness, and the admin API and status page the root adds to the app.
 * Those two exist only with an admin token, and their modules are loaded only then (issue 29: idle serve
 * does not hold code it never runs).
 */

import type { Express } from 'express';
import type { Client } from '../../client/create-client.js';
import type { BodyBudget } from '../../receiver/create-body-budget.js';
import type { DeliveryStats } from '../../receiver/create-delivery-stats.js';
import { createReceiver, type Receiver } from '../../receiver/create-receiver.js';
import type { DeliveryLimits } from '../../receiver/delivery-limits.js';
import { createDeliveryHandler, type FinderFetch } from '../../receiver/handle-delivery.js';
import { isDatabaseUp } from '../../storage/open-database.js';
import type { KeySetCache } from '../../webhooks/key-set-cache.js';
import type { MemoryPlan } from '../memory-plan.js';
import type { ServeContext } from './serve-part.js';

/** The receiver; listen() starts it, close() drains it. */
export async function createHttpReceiver(
  context: Omit<ServeContext, 'receiving'>,
  parts: {
    readonly keys: KeySetCache;
    readonly stats: DeliveryStats;
    readonly budget: BodyBudget;
    readonly limits: Partial<DeliveryLimits>;
    /** The memory plan's connection limits (server/memory-plan.ts); the options' headers timeout wins. */
    readonly connections: MemoryPlan['connectionLimits'];
    /** False while the store's worker is down. */
    readonly storeReady: () => boolean;
  },
): Promise<Receiver> {
  const { config, options, database, store, client, logger, now, metrics } = context;
  const admin = await loadAdminSurfaces(context);
  const { keys } = parts;
  const { db } = database;
  const fetchFromFinder = client === undefined ? undefined : finderFetch(client);
  const handler = createDeliveryHandler({
    keys,
    store,
    unsigned: config.unsigned,
    ...(fetchFromFinder ? { fetchFromFinder } : {}),
    database,
    limits: parts.limits,
    budget: parts.budget,
    now,
    ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {}),
    logger,
    metrics,
    stats: parts.stats,
    telemetry: options.telemetry,
  });
  return createReceiver({
    handleDelivery: handler,
    ...parts.connections,
    ...(options.headersTimeoutMs !== undefined ? { headersTimeoutMs: options.headersTimeoutMs } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    metrics,
    logger,
    isReady: async () => {
      const databaseUp = await isDatabaseUp(db);
      const keysLoaded = keys.stats().ready;
      const storeUp = parts.storeReady();
      return {
        ready: databaseUp && keysLoaded && storeUp,
        checks: { database: databaseUp, keys: keysLoaded, store: storeUp },
      };
    },
    ...(admin ? { extend: admin } : {}),
  });
}

/** The admin API and the status page on the app, or undefined without an admin token (their routes do not exist). */
async function loadAdminSurfaces(
  context: Omit<ServeContext, 'receiving'>,
): Promise<((app: Express) => void) | undefined> {
  const { config, database, logger, now, metrics } = context;
  const { adminToken } = config;
  if (adminToken === undefined || adminToken === '') return undefined;
  const [{ countAuthRefusals }, { createAuthThrottle }, { createAdminRouter }, { createStatusPageRouter }] =
    await Promise.all([
      import('../admin-access/count-auth-refusals.js'),
      import('../admin-access/create-auth-throttle.js'),
      import('../create-admin-router.js'),
      import('../status-page/create-status-page-router.js'),
    ]);
  return (app) => {
    // One throttle for both surfaces: a guess at the token counts the same wherever it is made.
    const throttle = createAuthThrottle({ logger, now, onRefused: countAuthRefusals(metrics.registry) });
    const adminNow = () => new Date(now());
    const { db } = database;
    app.use(createAdminRouter({ db, adminToken, now: adminNow, logger, throttle }));
    app.use(
      createStatusPageRouter({
        db,
        adminToken,
        now: adminNow,
        logger,
        throttle,
        sessionSeconds: config.uiSessionMinutes * 60,
      }),
    );
  };
}

/** An unsigned callback's authoritative copy, from the finder of its kind. */
function finderFetch(client: Client): FinderFetch {
  return async (kind, jobId) => {
    const response =
      kind === 'job_change' ? await client.jobChange.find(jobId) : await client.searchContact.find(jobId);
    return { raw: response.raw, job: response.job };
  };
}

/**
 * The digests of an alert destination: each digest route's cron (croner, seconds allowed) takes the
 * changes gathered since its last digest and posts one message per target (more only where the medium's
 * length limit forces it); nothing is posted when nothing was gathered. A change is in exactly one digest
 * of a route: a tick marks what it takes (`digest_id`) and what it posted (`posted_at`); a tick that
 * crashed between the two leaves its changes to the next tick, which posts them again (at most once
 * more). A lease per route keeps two replicas from running one digest at once.
 */
import { randomUUID } from 'node:crypto';
import { Cron } from 'croner';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../storage/database.js';
import { acquireLease, createLeaseHolderId, releaseLease } from '../../storage/leases/acquire-lease.js';
import type { ScheduledDestination } from '../destination-type.js';
import { whenUnlocked } from '../when-unlocked.js';
import type { AlertChange } from './alert-change.js';
import type { AlertCounters } from './alert-counters.js';
import { markDigestPosted, takeDigestItems } from './alert-ledger.js';
import type { AlertMedium } from './alert-medium.js';
import type { AlertRoute } from './alert-routes.js';

/** How long one digest may hold its lease. */
export const DIGEST_LEASE_MS = 10 * 60_000;
/** Time allowed to post one digest message. */
export const DIGEST_POST_TIMEOUT_MS = 30_000;

/** What the digests need. */
export interface DigestOptions<M> {
  readonly destination: string;
  readonly db: Kysely<Database>;
  readonly routes: readonly AlertRoute[];
  readonly medium: AlertMedium<M>;
  readonly counters: AlertCounters;
  readonly logger: Logger;
  readonly now: () => number;
}

/** The digests as a schedule of the destination's own; undefined when no route has a digest. */
export function createDigestSchedule<M>(options: DigestOptions<M>): ScheduledDestination | undefined {
  const routes = options.routes.filter((route) => route.digest !== undefined);
  if (routes.length === 0) return undefined;
  const holder = createLeaseHolderId();
  const runRoute = async (route: AlertRoute): Promise<string> => {
    const { db, destination, medium } = options;
    const lease = `alert-digest:${destination}:${route.index}`;
    const nowMs = options.now();
    const taken = await whenUnlocked(() =>
      acquireLease(db, { name: lease, holder, ttlMs: DIGEST_LEASE_MS, nowMs }),
    );
    if (!taken.acquired) return `route ${route.index + 1}: skipped, another process is posting its digest`;
    try {
      const digestId = `${new Date(nowMs).toISOString()}/${randomUUID()}`;
      const items = await whenUnlocked(() => takeDigestItems(db, destination, route.index, digestId));
      if (items.length === 0) return `route ${route.index + 1}: nothing new`;
      const byTarget = new Map<string, typeof items>();
      for (const item of items) byTarget.set(item.target, [...(byTarget.get(item.target) ?? []), item]);
      const said: string[] = [];
      for (const [target, list] of byTarget) {
        const changes = list.map((item) => JSON.parse(item.line) as AlertChange);
        let trouble: string | undefined;
        for (const message of medium.digestMessages(changes, route)) {
          const result = await medium.post(target, message, AbortSignal.timeout(DIGEST_POST_TIMEOUT_MS));
          if (result.outcome === 'delivered') {
            options.counters.add('messages_sent');
            continue;
          }
          options.counters.add(result.outcome === 'wait' ? 'rate_limited' : 'messages_failed');
          trouble = result.error;
          break;
        }
        if (trouble !== undefined) {
          options.logger.warn(
            { destination, route: route.index + 1, error: trouble },
            'digest not posted; its changes wait for the next one',
          );
          said.push(`${target}: not posted (${trouble})`);
          continue;
        }
        const ids = list.map((item) => item.id);
        await whenUnlocked(() => markDigestPosted(db, ids, new Date(options.now()).toISOString()));
        said.push(`${target}: ${changes.length} change(s)`);
      }
      return `route ${route.index + 1} digest: ${said.join('; ')}`;
    } finally {
      await releaseLease(db, { name: lease, holder }).catch(() => undefined);
      await options.counters.flush(true);
    }
  };
  const runOnce = async (): Promise<string> => {
    const results: string[] = [];
    for (const route of routes) results.push(await runRoute(route));
    return results.join('; ');
  };
  return {
    kind: 'scheduled',
    runOnce,
    start() {
      const running = new Set<Promise<unknown>>();
      const jobs = routes.map(
        (route) =>
          new Cron(route.digest!, { protect: true }, () => {
            const run = runRoute(route).then(
              (result) => options.logger.info({ destination: options.destination, result }, 'digest run'),
              (error: unknown) =>
                options.logger.warn(
                  { destination: options.destination, err: error },
                  'digest run failed; its changes wait for the next one',
                ),
            );
            running.add(run);
            void run.finally(() => running.delete(run));
            return run;
          }),
      );
      return async () => {
        for (const job of jobs) job.stop();
        await Promise.all(running);
      };
    },
  };
}

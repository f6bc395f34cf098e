/**
 * One watch change delivered by an alert destination: every route that takes it posts to its targets
 * (a channel or addresses, or the contact's owner, else the route's fallback), each target once
 * (`alert_sends`: a retried event posts only where it has not yet); a digest route gathers the change for
 * its next digest instead. Nothing is dropped silently: a change no route takes, or an owner's change
 * with no owner and no fallback, fails the event with that reason.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { AttemptResult, OutboxDelivery } from '../destination-type.js';
import { whenUnlocked } from '../when-unlocked.js';
import type { AlertChange } from './alert-change.js';
import { loadAlertChange } from './alert-change.js';
import { gatherDigestItem, recordSent, sentTargets } from './alert-ledger.js';
import type { AlertMedium } from './alert-medium.js';
import { type AlertRoute, matchingRoutes } from './alert-routes.js';
import type { OwnerEmails } from './owner-emails.js';

/** What delivering alerts needs. */
export interface AlertCore<M> {
  readonly destination: string;
  readonly db: Kysely<Database>;
  readonly routes: readonly AlertRoute[];
  readonly medium: AlertMedium<M>;
  readonly owners: OwnerEmails;
  readonly now: () => number;
  /** Counts messages sent and failed, and rate limits met (destination_counters). */
  count(counter: 'messages_sent' | 'messages_failed' | 'rate_limited', by?: number): void;
}

/** How bad a result is: the worst of an event's targets is the event's. */
const SEVERITY: Readonly<Record<AttemptResult['outcome'], number>> = {
  delivered: 0,
  fail: 1,
  retry: 2,
  wait: 3,
  pause: 4,
};

/** One target of a route for a change: where to post, or why there is nowhere. */
type Resolved = { readonly targets: string[] } | { readonly trouble: AttemptResult };

/** The targets of `route` for `change`: fixed ones, or the owner's, else the fallback. */
async function resolveTargets<M>(
  core: AlertCore<M>,
  route: AlertRoute,
  change: AlertChange,
  signal: AbortSignal,
): Promise<Resolved> {
  if (!route.targets.owner) return { targets: [...route.targets.fixed] };
  const email = await core.owners.ownerEmail(change, signal);
  let why: string;
  if ('email' in email) {
    const target = await core.medium.ownerTarget(email.email, signal);
    if ('target' in target) return { targets: [target.target] };
    if ('trouble' in target) return { trouble: target.trouble };
    why = target.unknown;
  } else if ('trouble' in email) {
    return { trouble: email.trouble };
  } else why = email.unknown;
  if (route.targets.fixed.length > 0) return { targets: [...route.targets.fixed] };
  return {
    trouble: {
      outcome: 'fail',
      status: null,
      error: `route ${route.index + 1} sends to the owner, and ${why}; it has no fallback`,
    },
  };
}

/** Delivers `delivery` (a watch change) through `core`; never throws. */
export async function deliverAlert<M>(
  core: AlertCore<M>,
  delivery: OutboxDelivery,
  signal: AbortSignal,
): Promise<AttemptResult> {
  try {
    return await deliverChange(core, delivery, signal);
  } catch (error) {
    return { outcome: 'retry', status: null, error: `could not deliver: ${(error as Error).message}` };
  }
}

async function deliverChange<M>(
  core: AlertCore<M>,
  delivery: OutboxDelivery,
  signal: AbortSignal,
): Promise<AttemptResult> {
  const event = delivery.change;
  if (event === undefined) {
    return { outcome: 'fail', status: null, error: 'only watch changes (kind watch_change) are alerted' };
  }
  const change = await loadAlertChange(core.db, event);
  const routes = matchingRoutes(core.routes, change.watch, change.kind);
  if (routes.length === 0) {
    return {
      outcome: 'fail',
      status: null,
      error: `no route takes a ${change.kind} change of watch ${change.watch}`,
    };
  }
  const sent = await sentTargets(core.db, core.destination, delivery.eventId);
  let worst: AttemptResult = { outcome: 'delivered', status: 200 };
  const worse = (result: AttemptResult) => {
    if (SEVERITY[result.outcome] > SEVERITY[worst.outcome]) worst = result;
  };
  for (const route of routes) {
    const resolved = await resolveTargets(core, route, change, signal);
    if ('trouble' in resolved) {
      worse(resolved.trouble);
      if (resolved.trouble.outcome === 'fail') core.count('messages_failed');
      if (SEVERITY[worst.outcome] >= SEVERITY.wait) return worst;
      continue;
    }
    for (const target of resolved.targets) {
      const key = `${route.index}:${target}`;
      if (route.digest !== undefined) {
        const item = {
          destination: core.destination,
          route: route.index,
          target,
          changeId: change.id,
          line: JSON.stringify(change),
        };
        await whenUnlocked(() => gatherDigestItem(core.db, item, new Date(core.now()).toISOString()));
        continue;
      }
      if (sent.has(key)) continue;
      const result = await core.medium.post(target, core.medium.changeMessage(change, route), signal);
      if (result.outcome === 'delivered') {
        const nowIso = new Date(core.now()).toISOString();
        await whenUnlocked(() => recordSent(core.db, core.destination, delivery.eventId, key, nowIso));
        sent.add(key);
        core.count('messages_sent');
        continue;
      }
      if (result.outcome === 'wait') core.count('rate_limited');
      if (result.outcome === 'fail') core.count('messages_failed');
      worse({ ...result, error: `${target}: ${result.error}` } as AttemptResult);
      if (SEVERITY[worst.outcome] >= SEVERITY.wait) return worst;
    }
  }
  return worst;
}

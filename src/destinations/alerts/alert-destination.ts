/**
 * An alert destination (Slack, e-mail) as the dispatcher sees it: an outbox destination of watch changes
 * (deliver-alert.ts), with its digests as a schedule of its own (digest-schedule.ts), a `ping` that posts
 * one test message to every target its routes name, and a `preview` of the messages a replay would post.
 */
import type { DestinationDeps, OutboxDelivery, OutboxDestination } from '../destination-type.js';
import type { AlertChange } from './alert-change.js';
import { loadAlertChange } from './alert-change.js';
import { AlertCounters } from './alert-counters.js';
import type { AlertMedium } from './alert-medium.js';
import { type AlertRoute, matchingRoutes } from './alert-routes.js';
import { deliverAlert } from './deliver-alert.js';
import { createDigestSchedule } from './digest-schedule.js';
import { createOwnerEmails } from './owner-emails.js';

/** What an alert destination is built from. */
export interface AlertDestinationOptions<M> {
  readonly name: string;
  readonly routes: readonly AlertRoute[];
  readonly medium: AlertMedium<M>;
  /** The CRM destination owners come from (`owner_crm`), if any. */
  readonly ownerCrm: string | undefined;
  /** How a target reads in messages (a webhook's is its variable's channel). */
  readonly targetLabel?: (target: string) => string;
  readonly deps: DestinationDeps;
}

/** The test message's change. */
function testChange(name: string): AlertChange {
  return {
    id: 'test',
    watch: 'test',
    kind: 'test',
    name,
    company: '',
    previousCompany: '',
    title: '',
    linkedin: undefined,
    fields: {},
  };
}

/** Builds the destination. */
export function createAlertDestination<M>(options: AlertDestinationOptions<M>): OutboxDestination {
  const { deps, medium, routes, name } = options;
  const db = deps.database.db;
  const label = options.targetLabel ?? ((target: string) => target);
  const counters = new AlertCounters(db, name, deps.now);
  const lookup = options.ownerCrm === undefined ? undefined : deps.crmOwners?.(options.ownerCrm);
  const owners = createOwnerEmails({ lookup, crm: options.ownerCrm, now: deps.now });
  const core = {
    destination: name,
    db,
    routes,
    medium,
    owners,
    now: deps.now,
    count: (counter: Parameters<AlertCounters['add']>[0], by?: number) => counters.add(counter, by),
  };
  const hasDigests = routes.some((route) => route.digest !== undefined);
  return {
    kind: 'outbox',
    template: undefined,
    // A job change's name and companies come from its normalized row: wait until it is written.
    normalized: true,
    rowsOnly: true,
    schedule: createDigestSchedule({
      destination: name,
      db,
      routes,
      medium,
      counters,
      logger: deps.logger,
      now: deps.now,
    }),
    async deliver(delivery, signal) {
      const result = await deliverAlert(core, delivery, signal);
      await counters.flush(hasDigests);
      return result;
    },
    async ping(signal) {
      const targets = [...new Set(routes.flatMap((route) => route.targets.fixed))];
      if (targets.length === 0) {
        return { outcome: 'fail', status: null, error: 'no route names a channel or address to test' };
      }
      const worked: string[] = [];
      const failed: string[] = [];
      for (const target of targets) {
        const message = medium.changeMessage(testChange(name), { ...routes[0]!, template: undefined });
        const result = await medium.post(target, message, signal);
        if (result.outcome === 'delivered') worked.push(label(target));
        else failed.push(`${label(target)} (${result.error})`);
      }
      const said = `posted to ${worked.length === 0 ? 'none' : worked.join(', ')}`;
      if (failed.length === 0) return { outcome: 'delivered', status: 200, detail: said };
      return { outcome: 'fail', status: null, error: `${said}; not to ${failed.join(', ')}` };
    },
    async preview(delivery: OutboxDelivery, _signal: AbortSignal) {
      if (delivery.change === undefined) return ['not a watch change: nothing to post'];
      const change = await loadAlertChange(db, delivery.change);
      const matching = matchingRoutes(routes, change.watch, change.kind);
      if (matching.length === 0) return [`no route takes a ${change.kind} change of watch ${change.watch}`];
      return matching.map((route) => {
        const fallback = route.targets.fixed.map(label).join(', ');
        const where = route.targets.owner
          ? `the owner's direct message${fallback === '' ? '' : ` (else ${fallback})`}`
          : route.targets.fixed.map(label).join(', ');
        const digest = route.digest === undefined ? '' : ` (in the digest "${route.digest}")`;
        return `${where}${digest}: ${medium.describe(medium.changeMessage(change, route))}`;
      });
    },
  };
}

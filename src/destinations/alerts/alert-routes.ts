/**
 * The `routes` of an alert destination (Slack, e-mail): which changes go where. Every route whose
 * `watches` and `changes` match (absent: all) posts the change to its target: a channel (Slack), addresses
 * (e-mail), or the contact's owner (`"to": "owner"`), whose message goes to the fallback when no owner can
 * be found. A route with `digest` (a cron expression) gathers its changes into one message per tick.
 */
import { Cron } from 'croner';
import { z } from 'zod';

/** The kinds of change a watch reports (docs/watches.md), the baseline aside. */
export const CHANGE_KINDS = ['moved', 'left', 'returned', 'title', 'new_person'] as const;

/** A cron expression as croner reads it (seconds allowed). */
export const cronSchema = z.string().refine(
  (expression) => {
    try {
      new Cron(expression, { paused: true }).stop();
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be a cron expression, e.g. "0 9 * * 1"' },
);

/** The fields every route has, whatever the destination's type. */
export const routeMatchShape = {
  watches: z.array(z.string().min(1)).min(1).optional(),
  changes: z.array(z.enum(CHANGE_KINDS)).min(1).optional(),
  digest: cronSchema.optional(),
  template: z.string().min(1).max(3_000).optional(),
};

/** Where a route's message goes: fixed targets, or the owner with fixed fallback targets. */
export interface RouteTargets {
  readonly owner: boolean;
  /** The targets (owner: none) or the fallback (owner: possibly none). */
  readonly fixed: readonly string[];
}

/** A route as the alert core uses it. */
export interface AlertRoute {
  readonly index: number;
  readonly watches: readonly string[] | undefined;
  readonly changes: readonly string[] | undefined;
  readonly digest: string | undefined;
  readonly template: string | undefined;
  readonly targets: RouteTargets;
}

/** Whether `route` takes a change of `kind` found by `watch`. */
export function routeMatches(route: AlertRoute, watch: string, kind: string): boolean {
  return (
    (route.watches === undefined || route.watches.includes(watch)) &&
    (route.changes === undefined || route.changes.includes(kind))
  );
}

/** The routes taking a change. */
export function matchingRoutes(routes: readonly AlertRoute[], watch: string, kind: string): AlertRoute[] {
  return routes.filter((route) => routeMatches(route, watch, kind));
}

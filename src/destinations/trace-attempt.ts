/**
 * A destination attempt as a span (issue 40), made only when tracing is on: a child of the delivery that
 * stored the first event's job (its traceparent kept with the outbox event, migration 025), linked to the
 * deliveries of the rest of a batch; the outbound calls it makes are client spans under it.
 */
import type { Telemetry } from '../telemetry/telemetry.js';
import type { HeldEvent } from './claim-window.js';
import type { OutcomePlan } from './plan-outcome.js';

/** Runs `attempt` for `held` events of `destination` in a span; its outcomes become attributes. */
export function traceAttempt(
  telemetry: Telemetry,
  destination: string,
  type: string | undefined,
  held: readonly HeldEvent[],
  attempt: () => Promise<OutcomePlan[]>,
): Promise<OutcomePlan[]> {
  const parent = held[0]?.event.traceParent;
  const links = new Set<string>();
  for (const { event } of held) {
    if (event.traceParent !== undefined && event.traceParent !== parent) links.add(event.traceParent);
  }
  return telemetry.inSpan(
    `deliver ${destination}`,
    {
      kind: 'producer',
      parent,
      links: [...links],
      attributes: {
        'hooksync.destination': destination,
        'hooksync.destination.type': type,
        'hooksync.events': held.length,
        'hooksync.job.id': held.length === 1 ? held[0]!.event.jobId : undefined,
      },
    },
    async (span) => {
      const plans = await attempt();
      const outcomes = new Map<string, number>();
      for (const plan of plans) {
        if (plan.outcome !== undefined) outcomes.set(plan.outcome, (outcomes.get(plan.outcome) ?? 0) + 1);
      }
      span.set({
        'hooksync.outcome':
          outcomes.size === 1 ? [...outcomes.keys()][0] : outcomes.size === 0 ? 'released' : 'mixed',
        ...Object.fromEntries([...outcomes].map(([outcome, count]) => [`hooksync.events.${outcome}`, count])),
      });
      if ((outcomes.get('failed') ?? 0) > 0 || (outcomes.get('retried') ?? 0) > 0) span.fail('not delivered');
      return plans;
    },
  );
}

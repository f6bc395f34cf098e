/**
 * One attempt for some held events (a single delivery is a batch of one): the events that need no call
 * end at once (planDelivery), the others go to the type in one call (`deliverBatch` when it has one, else
 * `deliver`), under the attempt timeout, and each result is planned (planOutcome). An attempt cut short by
 * shutdown is not the destination's fault: its undelivered events go back as they were.
 */

import { boundOutsideText } from '../contract/outside-text.js';
import type { HooksyncDatabase } from '../storage/open-database.js';
import type { HeldEvent } from './claim-window.js';
import type { DestinationMetrics } from './destination-metrics.js';
import type {
  AttemptResult,
  DispatchSettings,
  OutboxDelivery,
  OutboxDestination,
} from './destination-type.js';
import type { ClaimedEvent } from './outbox.js';
import { type OutcomePlan, planDelivery, planOutcome, planRelease } from './plan-outcome.js';
import { createTemplateRows, type TemplateRows } from './template-rows.js';

/** What an attempt is made with. */
export interface AttemptContext {
  /** The destination's name. */
  readonly name: string;
  readonly destination: OutboxDestination;
  readonly timeoutMs: number;
  readonly scheduleMs: readonly number[];
  /** Aborts with the lane (shutdown). */
  readonly stop: AbortSignal;
  /** The template's rows, for a template destination. */
  readonly rows: TemplateRows | undefined;
  readonly metrics: DestinationMetrics | undefined;
  readonly now: () => number;
  readonly random: (() => number) | undefined;
}

/** The context of `destination`'s attempts under `settings`. */
export function attemptContextOf(
  name: string,
  destination: OutboxDestination,
  settings: DispatchSettings,
  deps: {
    readonly database: HooksyncDatabase;
    readonly stop: AbortSignal;
    readonly metrics?: DestinationMetrics | undefined;
    readonly now: () => number;
    readonly random?: (() => number) | undefined;
  },
): AttemptContext {
  const { template } = destination;
  return {
    name,
    destination,
    timeoutMs: settings.timeoutMs,
    scheduleMs: settings.scheduleMs,
    stop: deps.stop,
    rows: template === undefined ? undefined : createTemplateRows(deps.database, template),
    metrics: deps.metrics,
    now: deps.now,
    random: deps.random,
  };
}

/**
 * Attempts `held` once; a plan per event, in order of readiness (the ones ended without a call first).
 * The plans of events whose results the type settles before the attempt ends (a CRM's segments already
 * written) go to `early` as they come, and not again in the plans returned.
 */
export async function attemptEvents(
  held: readonly HeldEvent[],
  context: AttemptContext,
  early?: (plans: OutcomePlan[], events: ClaimedEvent[]) => void,
): Promise<OutcomePlan[]> {
  const plans: OutcomePlan[] = [];
  const ready: Array<{ event: ClaimedEvent; delivery: OutboxDelivery }> = [];
  for (const { event, job, queued, change } of held) {
    const planned = planDelivery(event, job, queued, retryPolicyOf(context), change);
    if ('plan' in planned) plans.push(planned.plan);
    else ready.push({ event, delivery: planned.delivery });
  }
  if (ready.length === 0) return plans;
  const { rows } = context;
  const deliveries = await Promise.all(
    ready.map(async ({ delivery }) =>
      rows === undefined ? delivery : { ...delivery, rows: await rows(delivery.jobId) },
    ),
  );
  const bounded = attemptSignal(context.timeoutMs, context.stop);
  try {
    return await attemptReady(ready, deliveries, bounded.signal, context, plans, early);
  } finally {
    bounded.clear();
  }
}

/**
 * A signal that aborts after `timeoutMs` (a TimeoutError, as `AbortSignal.timeout`'s) or with `stop`. Our own
 * timer, held here until `clear`: on Node 20, `AbortSignal.any` holds its sources weakly, so an
 * `AbortSignal.timeout` in it can be garbage-collected and an attempt against a hung CRM run without limit.
 */
export function attemptSignal(
  timeoutMs: number,
  stop: AbortSignal,
): { readonly signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const onStop = () => controller.abort(stop.reason);
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    timeoutMs,
  );
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    },
  };
}

/** The attempt's call for the events `ready` (their `deliveries`), under `signal`; their plans joined to `plans`. */
async function attemptReady(
  ready: ReadonlyArray<{ event: ClaimedEvent; delivery: OutboxDelivery }>,
  deliveries: readonly OutboxDelivery[],
  signal: AbortSignal,
  context: AttemptContext,
  plans: OutcomePlan[],
  early: ((plans: OutcomePlan[], events: ClaimedEvent[]) => void) | undefined,
): Promise<OutcomePlan[]> {
  const { name, destination, stop, now } = context;
  const policy = () => retryPolicyOf(context);
  const started = performance.now();
  const planOf = (event: ClaimedEvent, result: AttemptResult, stopped: boolean): OutcomePlan =>
    stopped && result.outcome !== 'delivered'
      ? planRelease(event, now())
      : planOutcome(event, result, policy());
  // Events planned already (settled early).
  let settled = 0;
  const settle =
    early === undefined
      ? undefined
      : (results: readonly AttemptResult[]) => {
          const events = ready.slice(settled, settled + results.length).map(({ event }) => event);
          settled += events.length;
          early(
            events.map((event, at) => planOf(event, results[at]!, stop.aborted)),
            events,
          );
        };
  const results = await deliver(destination, deliveries, signal, settle).catch((error: unknown) =>
    // An exception inside the attempt is a failed attempt, retried on the destination's schedule like any
    // other: never an event handed back at once, which would be a loop of calls (issue 43).
    ready.map((): AttemptResult => ({ outcome: 'retry', status: null, error: thrownText(error) })),
  );
  const stopped = stop.aborted;
  if (!stopped || results.every((result) => result.outcome === 'delivered')) {
    context.metrics?.attemptSeconds.observe({ destination: name }, (performance.now() - started) / 1000);
  }
  for (const [index, { event }] of ready.entries())
    if (index >= settled) plans.push(planOf(event, results[index]!, stopped));
  return plans;
}

/** The retry policy of `context`'s events, as of now. */
function retryPolicyOf(context: AttemptContext) {
  return {
    destination: context.name,
    scheduleMs: context.scheduleMs,
    nowMs: context.now(),
    random: context.random,
  };
}

/** The type's batch call when it has one, else one call per delivery. */
function deliver(
  destination: OutboxDestination,
  deliveries: readonly OutboxDelivery[],
  signal: AbortSignal,
  settled: ((results: readonly AttemptResult[]) => void) | undefined,
): Promise<AttemptResult[]> {
  if (destination.deliverBatch !== undefined) return destination.deliverBatch(deliveries, signal, settled);
  return Promise.all(deliveries.map((delivery) => destination.deliver(delivery, signal)));
}

/** What an attempt that threw says in last_error and the log: its message, bounded. */
function thrownText(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return boundOutsideText(`the attempt failed: ${message}`);
}

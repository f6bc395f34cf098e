/**
 * What the receiver keeps of a refused callback (issue 15): what explains the refusal, not what an
 * attacker sends. A bounded prefix of the body for refusals an unauthenticated client can cause; the whole
 * body only where a verified token vouches for it; a per-reason rate above which refusals are counted but
 * not stored one by one; and a total byte budget for bodies, the oldest emptied first (rows stay).
 */
import type { Logger } from 'pino';
import type { RefusalCode } from '../errors.js';
import type { JobStore } from '../storage/job-store/job-store.js';
import type { TrimQuarantineReport } from '../storage/quarantine/trim-quarantine.js';
import type { QuarantineInput } from '../storage/quarantine/write-quarantine.js';
import type { ReceiverMetrics } from './create-metrics.js';

/** Bytes kept of a body no verified token vouches for. */
export const DEFAULT_QUARANTINE_PREFIX_BYTES = 64 * 1024;
/** Total bytes of quarantined bodies kept. */
export const DEFAULT_QUARANTINE_BUDGET_BYTES = 256 * 1024 * 1024;
/** Refusals of one reason stored one by one per minute; the rest are only counted. */
export const DEFAULT_QUARANTINE_RATE_PER_MINUTE = 60;
/** How soon after a stored body the byte budget is enforced, in ms. */
const TRIM_DELAY_MS = 1000;

/** Collaborators and knobs of {@link createQuarantinePolicy}. */
export interface QuarantinePolicyDeps {
  store: Pick<JobStore, 'quarantine'>;
  /** Empties the oldest bodies past the budget; without it the budget is not enforced. */
  trim?: (budgetBytes: number) => Promise<TrimQuarantineReport>;
  metrics?: ReceiverMetrics;
  logger?: Logger;
  now?: () => number;
  /** Default {@link DEFAULT_QUARANTINE_PREFIX_BYTES}. */
  prefixBytes?: number;
  /** Default {@link DEFAULT_QUARANTINE_BUDGET_BYTES}. */
  budgetBytes?: number;
  /** Default {@link DEFAULT_QUARANTINE_RATE_PER_MINUTE}. */
  ratePerMinute?: number;
}

/** A refusal to keep: the body as read, whether a verified token vouches for it, and its full size. */
export interface Refusal extends QuarantineInput {
  vouched: boolean;
  /** Size of the whole body as declared or received, when more than `body` was sent. */
  totalBytes?: number;
}

/** Applies the rules above on the way to the store. */
export interface QuarantinePolicy {
  /** Stores the refusal (or only counts it, over the rate); rejects when the store fails. */
  keep(refusal: Refusal): Promise<'stored' | 'counted'>;
  /** Stops the pending trim. */
  close(): Promise<void>;
}

/** Creates the policy. */
export function createQuarantinePolicy(deps: QuarantinePolicyDeps): QuarantinePolicy {
  const now = deps.now ?? Date.now;
  const prefixBytes = deps.prefixBytes ?? DEFAULT_QUARANTINE_PREFIX_BYTES;
  const budgetBytes = deps.budgetBytes ?? DEFAULT_QUARANTINE_BUDGET_BYTES;
  const ratePerMinute = deps.ratePerMinute ?? DEFAULT_QUARANTINE_RATE_PER_MINUTE;
  const windows = new Map<string, { minute: number; stored: number; counted: number }>();
  let timer: NodeJS.Timeout | undefined;
  let trimming: Promise<void> | undefined;
  let closed = false;

  const trimNow = async (): Promise<void> => {
    timer = undefined;
    if (!deps.trim) return;
    try {
      const report = await deps.trim(budgetBytes);
      deps.metrics?.quarantineBodyBytes.set(report.keptBytes);
      if (report.droppedBodies > 0) {
        deps.metrics?.quarantineBodiesDropped.inc(report.droppedBodies);
        deps.logger?.warn(
          { dropped: report.droppedBodies, budgetBytes },
          'quarantine byte budget reached: the oldest bodies were dropped (their rows stay)',
        );
      }
    } catch (error) {
      deps.logger?.warn({ err: error }, 'could not enforce the quarantine byte budget');
    }
  };
  const scheduleTrim = (): void => {
    if (closed || timer || !deps.trim) return;
    timer = setTimeout(() => {
      trimming = trimNow().finally(() => (trimming = undefined));
    }, TRIM_DELAY_MS);
    timer.unref();
  };

  /** True when this refusal may be stored one by one under its reason's rate. */
  const admit = (reason: RefusalCode): boolean => {
    const minute = Math.floor(now() / 60_000);
    let window = windows.get(reason);
    if (window === undefined || window.minute !== minute) {
      if (window !== undefined && window.counted > 0) {
        deps.logger?.warn(
          { reason, counted: window.counted, ratePerMinute },
          'refusals over the quarantine rate were counted but not stored',
        );
      }
      window = { minute, stored: 0, counted: 0 };
      windows.set(reason, window);
    }
    if (window.stored < ratePerMinute) {
      window.stored += 1;
      return true;
    }
    if (window.counted === 0) {
      deps.logger?.warn({ reason, ratePerMinute }, 'quarantine rate reached: further refusals only counted');
    }
    window.counted += 1;
    return false;
  };

  return {
    async keep(refusal) {
      if (!admit(refusal.reason)) {
        deps.metrics?.quarantineSkipped.inc({ reason: refusal.reason });
        return 'counted';
      }
      const { vouched, totalBytes, ...input } = refusal;
      const whole = Math.max(totalBytes ?? 0, input.body.length);
      const body =
        vouched || input.body.length <= prefixBytes ? input.body : input.body.subarray(0, prefixBytes);
      const note = body.length < whole ? `(first ${body.length} of ${whole} bytes kept)` : undefined;
      await deps.store.quarantine({
        ...input,
        body,
        ...(note !== undefined ? { detail: input.detail ? `${input.detail} ${note}` : note } : {}),
      });
      if (body.length > 0) scheduleTrim();
      return 'stored';
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await trimming;
    },
  };
}

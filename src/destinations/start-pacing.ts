/**
 * When a lane may start its next attempt, beside its free slots: the destination's rate window (one
 * request per attempt), and for a batch type a short linger while the batch is short of full and, while
 * receiving is busy, a gap between batches. Times: the rate window on the lane's clock, the linger and
 * the gap on performance.now().
 */
import { RateWindow } from '../contract/rate-window.js';
import type { DispatchSettings } from './destination-type.js';

/** While the process is busy receiving, a batch lane starts one batch per this long at most. */
export const YIELD_BATCH_GAP_MS = 1_000;

/** A lane's pacing of its starts. */
export interface StartPacing {
  /**
   * Ms to wait before the next attempt may start (then ask again), or 0: it may start now, and its place
   * in the rate window is taken.
   */
  waitMs(state: { readonly queued: number; readonly yielding: boolean; readonly draining: boolean }): number;
}

/** Pacing for `settings`, with `batchSize` events per attempt; `now` is the lane's clock. */
export function createStartPacing(
  settings: Pick<DispatchSettings, 'rate' | 'batch'>,
  batchSize: number,
  now: () => number,
): StartPacing {
  const rate = settings.rate === undefined ? undefined : new RateWindow(settings.rate);
  const lingerMs = settings.batch?.lingerMs ?? 0;
  const fullAt = Math.min(batchSize, settings.batch?.fullAt ?? batchSize);
  /** A batch short of full waits once for more, until this time. */
  let lingerUntil: number | undefined;
  let lastBatchAt = Number.NEGATIVE_INFINITY;
  return {
    waitMs({ queued, yielding, draining }) {
      const at = performance.now();
      if (batchSize > 1) {
        // A short linger fills the batch: HubSpot's calls are the limit, not the events.
        if (queued < fullAt && lingerMs > 0 && !draining) {
          lingerUntil ??= at + lingerMs;
          if (at < lingerUntil) return lingerUntil - at;
        }
        // A batch is a lot of work at once: while receiving is busy, one batch a second at most.
        const gapMs = lastBatchAt + YIELD_BATCH_GAP_MS - at;
        if (yielding && !draining && gapMs > 0) return gapMs;
      }
      const nowMs = now();
      if (rate !== undefined && !rate.take(nowMs)) return Math.max(1, rate.waitMs(nowMs));
      if (batchSize > 1) {
        lastBatchAt = at;
        lingerUntil = undefined;
      }
      return 0;
    },
  };
}

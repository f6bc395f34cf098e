import { describe, expect, it } from 'vitest';
import {
  CLAIM_MARGIN_MS,
  laneCapacity,
  MAX_HELD,
  MIN_HELD,
  planClaim,
} from '../../../src/destinations/claim-window.js';

const settings = { concurrency: 4, timeoutMs: 10_000, rate: undefined };

describe('claim window', () => {
  it('holds three rounds of slots, within the bounds', () => {
    expect(laneCapacity({ concurrency: 1 }, 1)).toBe(MIN_HELD);
    expect(laneCapacity({ concurrency: 8 }, 1)).toBe(24);
    expect(laneCapacity({ concurrency: 4 }, 100)).toBe(MAX_HELD);
  });

  it('claims what fits beside the events held, until every held event had its turn plus a margin', () => {
    expect(planClaim({ settings, batchSize: 1, attempts: 2, queued: 0, nowMs: 0 })).toEqual({
      limit: MIN_HELD - 2,
      // 16 events over 4 slots: 4 turns of the 10 s timeout.
      claimedUntilMs: 4 * 10_000 + CLAIM_MARGIN_MS,
    });
  });

  it('adds the time the rate window takes to let every held event through', () => {
    const rated = { ...settings, rate: { requests: 2, perMs: 1_000 } };
    const { claimedUntilMs } = planClaim({ settings: rated, batchSize: 1, attempts: 0, queued: 0, nowMs: 5 });
    expect(claimedUntilMs).toBe(5 + 4 * 10_000 + 8_000 + CLAIM_MARGIN_MS);
  });

  it('waits for a page worth of room while events are still queued', () => {
    expect(planClaim({ settings, batchSize: 1, attempts: 4, queued: 10, nowMs: 0 }).limit).toBe(0);
    expect(planClaim({ settings, batchSize: 1, attempts: 4, queued: 12, nowMs: 0 }).limit).toBe(0);
    expect(planClaim({ settings, batchSize: 1, attempts: 0, queued: 4, nowMs: 0 }).limit).toBe(12);
  });

  it('counts events whose outcome is not written yet as held', () => {
    expect(planClaim({ settings, batchSize: 1, attempts: 0, queued: 0, recording: 10, nowMs: 0 }).limit).toBe(
      6,
    );
    expect(planClaim({ settings, batchSize: 1, attempts: 4, queued: 0, recording: 12, nowMs: 0 }).limit).toBe(
      0,
    );
  });
});

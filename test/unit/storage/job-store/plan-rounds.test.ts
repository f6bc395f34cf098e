import { describe, expect, it } from 'vitest';
import { planRounds } from '../../../../src/storage/job-store/plan-rounds.js';
import { prepareJob } from '../../../../src/storage/job-store/prepare-job.js';
import { companyRevealText, testUuid } from '../envelope-texts.js';

function job(n: number, jti?: string) {
  return prepareJob(
    { envelopeText: companyRevealText(testUuid(n)), source: 'webhook', ...(jti ? { jti } : {}) },
    0,
  );
}

describe('planRounds', () => {
  it('puts distinct jobs in one round', () => {
    expect(planRounds([job(1), job(2), job(3)])).toEqual({ rounds: [[0, 1, 2]], replays: [] });
  });

  it('puts later copies of a job in later rounds, in arrival order', () => {
    expect(planRounds([job(1), job(2), job(1), job(1), job(2)])).toEqual({
      rounds: [[0, 1], [2, 4], [3]],
      replays: [],
    });
  });

  it('marks a jti seen earlier in the batch as a replay', () => {
    expect(planRounds([job(1, 'a'), job(2, 'b'), job(1, 'a'), job(3, 'a')])).toEqual({
      rounds: [[0, 1]],
      replays: [2, 3],
    });
  });

  it('handles an empty batch', () => {
    expect(planRounds([])).toEqual({ rounds: [], replays: [] });
  });
});

import { describe, expect, it } from 'vitest';
import {
  LAUNCH_HEAP_BASE_MB,
  LAUNCH_YOUNG_GENERATION_MB,
  launchAnswerBudgetBytes,
  launchResourceLimits,
} from '../../../src/cli/launch-thread.js';
import { loadClientLimits } from '../../../src/config/load-client-limits.js';

describe('the launch thread’s limits', () => {
  it('reads one largest answer at a time by default: 4 MiB, held parsed in 48 + 88 MB of old generation', () => {
    const limits = loadClientLimits({});
    expect(launchAnswerBudgetBytes(limits)).toBe(4 * 2 ** 20);
    expect(launchResourceLimits(limits)).toEqual({
      maxYoungGenerationSizeMb: LAUNCH_YOUNG_GENERATION_MB,
      maxOldGenerationSizeMb: LAUNCH_HEAP_BASE_MB + 88,
    });
  });

  it('follows the answer cap when only the cap is set', () => {
    const limits = loadClientLimits({ HOOKSYNC_MAX_ANSWER_BYTES: String(2 ** 20) });
    expect(launchAnswerBudgetBytes(limits)).toBe(2 ** 20);
    expect(launchResourceLimits(limits).maxOldGenerationSizeMb).toBe(LAUNCH_HEAP_BASE_MB + 22);
  });

  it('grows the old generation with a budget set in the environment', () => {
    const limits = loadClientLimits({ HOOKSYNC_ANSWER_BUDGET_BYTES: String(16 * 2 ** 20) });
    expect(launchAnswerBudgetBytes(limits)).toBe(16 * 2 ** 20);
    expect(launchResourceLimits(limits).maxOldGenerationSizeMb).toBe(LAUNCH_HEAP_BASE_MB + 352);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_ANSWER_BUDGET_BYTES } from '../../../src/client/answer-budget.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../src/client/read-capped-body.js';
import { DEFAULT_BODY_BUDGET_BYTES } from '../../../src/receiver/create-body-budget.js';
import { createMetrics } from '../../../src/receiver/create-metrics.js';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../../src/receiver/read-body.js';
import {
  applyMemoryPlan,
  BODY_BYTE_COST,
  MEMORY_FLOOR_BYTES,
  planMemory,
} from '../../../src/server/memory-plan.js';
import { DEFAULT_HELD_CHARS } from '../../../src/storage/job-store/job-store.js';
import { DEFAULT_STORE_WORKER_LIMITS } from '../../../src/storage/job-store/worker-job-store.js';

const MIB = 1024 * 1024;

describe('the memory plan', () => {
  it('keeps every default without a ceiling', () => {
    expect(planMemory(undefined)).toEqual({
      ceilingBytes: undefined,
      budgets: undefined,
      receiverLimits: {},
      connectionLimits: {},
      clientLimits: {},
      heldChars: DEFAULT_HELD_CHARS,
      storeWorkerLimits: DEFAULT_STORE_WORKER_LIMITS,
    });
  });

  it.each([224, 256, 384, 512, 1024])('fits the budgets and the floor under a ceiling of %i MiB', (mb) => {
    const ceiling = mb * MIB;
    const plan = planMemory(ceiling);
    const budgets = plan.budgets!;
    const sum = Object.values(budgets).reduce((total, bytes) => total + bytes, 0);
    expect(sum + MEMORY_FLOOR_BYTES).toBeLessThanOrEqual(ceiling);
    const { bodyBudgetBytes, bodyLimitBytes } = plan.receiverLimits;
    // Each body byte admitted is charged what it costs on the way in.
    expect(bodyBudgetBytes! * BODY_BYTE_COST).toBeLessThanOrEqual(budgets.bodies);
    // A body over the budget could never be admitted: it is refused as too large instead of retried forever.
    expect(bodyLimitBytes).toBeLessThanOrEqual(bodyBudgetBytes!);
    // A realistic 250-person page (~550 KB) fits several times over.
    expect(bodyBudgetBytes).toBeGreaterThan(5 * 550_000);
    expect(plan.storeWorkerLimits.maxOldGenerationSizeMb).toBeLessThan(mb / 2);
    expect(plan.heldChars).toBeLessThanOrEqual(DEFAULT_HELD_CHARS);
    // A finder's copy of a page stays readable however small the ceiling.
    expect(plan.clientLimits.maxResponseBytes).toBeGreaterThanOrEqual(1024 * 1024);
    expect(plan.clientLimits.maxResponseBytes).toBeLessThanOrEqual(plan.clientLimits.answerBudgetBytes!);
  });

  it('only ever lowers the defaults, however large the ceiling', () => {
    const plan = planMemory(64 * 1024 * MIB);
    expect(plan.receiverLimits).toEqual({
      bodyBudgetBytes: DEFAULT_BODY_BUDGET_BYTES,
      bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
    });
    expect(plan.heldChars).toBe(DEFAULT_HELD_CHARS);
    expect(plan.clientLimits).toEqual({
      answerBudgetBytes: DEFAULT_ANSWER_BUDGET_BYTES,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    });
  });

  it('refuses a ceiling that leaves no room above the floor', () => {
    expect(() => planMemory(MEMORY_FLOOR_BYTES)).toThrow(RangeError);
  });

  it('shows the plan as hooksync_memory_budget_bytes{budget}', async () => {
    const metrics = createMetrics({ defaults: false });
    applyMemoryPlan(planMemory(256 * MIB), metrics);
    const text = await metrics.registry.metrics();
    expect(text).toContain(`hooksync_memory_budget_bytes{budget="ceiling"} ${256 * MIB}`);
    for (const budget of ['bodies', 'bodies_admitted', 'prepared_jobs', 'normalization_queue', 'answers']) {
      expect(text).toMatch(
        new RegExp(`^hooksync_memory_budget_bytes\\{budget="${budget}"\\} [1-9]\\d*$`, 'm'),
      );
    }
  });
});

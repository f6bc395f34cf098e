import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../src/client/read-capped-body.js';
import { DEFAULT_BODY_BUDGET_BYTES } from '../../../src/receiver/create-body-budget.js';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../../src/receiver/read-body.js';
import { BODY_BYTE_COST, MEMORY_FLOOR_BYTES, planMemory } from '../../../src/server/memory-plan.js';
import { DEFAULT_HELD_CHARS } from '../../../src/storage/job-store/job-store.js';
import { DEFAULT_STORE_WORKER_LIMITS } from '../../../src/storage/job-store/worker-job-store.js';

const MIB = 1024 * 1024;

describe('the memory plan', () => {
  it('keeps every default without a ceiling', () => {
    const plan = planMemory(undefined);
    expect(plan).toMatchObject({
      budgets: undefined,
      bodyBudgetBytes: DEFAULT_BODY_BUDGET_BYTES,
      bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
      heldChars: DEFAULT_HELD_CHARS,
      storeWorkerLimits: DEFAULT_STORE_WORKER_LIMITS,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    });
  });

  it.each([256, 384, 512, 1024])('fits the budgets and the floor under a ceiling of %i MiB', (mb) => {
    const ceiling = mb * MIB;
    const plan = planMemory(ceiling);
    const budgets = plan.budgets!;
    const sum = Object.values(budgets).reduce((total, bytes) => total + bytes, 0);
    expect(sum + MEMORY_FLOOR_BYTES).toBeLessThanOrEqual(ceiling);
    // Each body byte admitted is charged what it costs on the way in.
    expect(plan.bodyBudgetBytes * BODY_BYTE_COST).toBeLessThanOrEqual(budgets.bodies);
    // A body over the budget could never be admitted: it is refused as too large instead of retried forever.
    expect(plan.bodyLimitBytes).toBeLessThanOrEqual(plan.bodyBudgetBytes);
    // A realistic 250-person page (~550 KB) fits many times over.
    expect(plan.bodyBudgetBytes).toBeGreaterThan(10 * 550_000);
    expect(plan.storeWorkerLimits.maxOldGenerationSizeMb).toBeLessThan(mb / 2);
    expect(plan.heldChars).toBeLessThanOrEqual(DEFAULT_HELD_CHARS);
    expect(plan.maxResponseBytes).toBeLessThanOrEqual(budgets.answers);
  });

  it('only ever lowers the defaults, however large the ceiling', () => {
    const plan = planMemory(64 * 1024 * MIB);
    expect(plan.bodyBudgetBytes).toBe(DEFAULT_BODY_BUDGET_BYTES);
    expect(plan.bodyLimitBytes).toBe(DEFAULT_BODY_LIMIT_BYTES);
    expect(plan.heldChars).toBe(DEFAULT_HELD_CHARS);
    expect(plan.maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
  });

  it('refuses a ceiling that leaves no room above the floor', () => {
    expect(() => planMemory(MEMORY_FLOOR_BYTES)).toThrow(RangeError);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidUsd, type Reservation, SpendBudget } from '../../../src/launch/spend-budget.js';

describe('SpendBudget', () => {
  it('lets a never-priced call go alone, reserving all that is left, then reserves the highest price seen', () => {
    const budget = new SpendBudget({ capUsd: 0.1 });
    const first = budget.tryReserve('job-change');
    expect(first?.usd).toBeCloseTo(0.1);
    expect(budget.tryReserve('job-change')).toBeUndefined();
    first?.settle(0.02);
    expect(budget.spentUsd).toBeCloseTo(0.02);
    expect(budget.priceOf('job-change')).toBeCloseTo(0.02);
    const held = [budget.tryReserve('job-change'), budget.tryReserve('job-change')];
    expect(held.every((r) => r?.usd === 0.02)).toBe(true);
    const third = budget.tryReserve('job-change');
    expect(third).toBeDefined();
    third?.release();
    for (const r of held) r?.hold();
    expect(budget.held).toBe(2);
    expect(budget.reservedUsd).toBeCloseTo(0.04);
    // 0.02 spent + 0.04 held: two more fit exactly (0.10), a third does not.
    expect(budget.tryReserve('job-change')?.usd).toBe(0.02);
    expect(budget.tryReserve('job-change')?.usd).toBe(0.02);
    expect(budget.tryReserve('job-change')).toBeUndefined();
  });

  it('keeps a RUNNING answer reserved until its cost is known, and then counts the cost', () => {
    const budget = new SpendBudget({ capUsd: 0.05, estimatesUsd: { 'job-change': 0.02 } });
    const a = budget.tryReserve('job-change') as Reservation;
    const b = budget.tryReserve('job-change') as Reservation;
    a.hold();
    b.hold();
    expect(budget.tryReserve('job-change')).toBeUndefined();
    a.settle(0.01);
    expect(budget.spentUsd).toBeCloseTo(0.01);
    expect(budget.reservedUsd).toBeCloseTo(0.02);
    // The price learned (0.01) is below the estimate: the estimate still counts as known, the learned price wins.
    expect(budget.priceOf('job-change')).toBeCloseTo(0.01);
    expect(budget.tryReserve('job-change')?.usd).toBeCloseTo(0.01);
  });

  it('prices per unit: a Search page reserves the highest price per person times its page size', () => {
    const budget = new SpendBudget({ capUsd: 10 });
    budget.learnPrice('search', 0.3, 30);
    expect(budget.tryReserve('search', 250)?.usd).toBeCloseTo(2.5);
  });

  it('learns nothing from a free answer, and refuses negative or non-finite totals', () => {
    const budget = new SpendBudget({ capUsd: 1 });
    const r = budget.tryReserve('reveal') as Reservation;
    expect(() => r.settle(-0.03)).toThrow(TypeError);
    expect(() => r.settle(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => r.settle(Number.NaN)).toThrow(TypeError);
    r.settle(0);
    expect(budget.priceOf('reveal')).toBeUndefined();
    expect(() => new SpendBudget({ capUsd: -1 })).toThrow(TypeError);
    expect(() => new SpendBudget({ capUsd: 1, estimatesUsd: { x: Number.NaN } })).toThrow(TypeError);
    expect([0, 1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, '1'].map(isValidUsd)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('wakes a waiting caller when an in-flight reservation settles', async () => {
    const budget = new SpendBudget({ capUsd: 0.05 });
    const first = budget.tryReserve('x') as Reservation;
    const waited = budget.whenSettled();
    first.settle(0.01);
    await waited;
    expect(budget.tryReserve('x')?.usd).toBeCloseTo(0.01);
  });

  it('never admits a call past the cap while every job costs at most the highest price seen', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.array(
          fc.record({
            op: fc.constantFrom('reserve', 'settle', 'hold', 'release'),
            pick: fc.nat(),
            fraction: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { maxLength: 80 },
        ),
        (capCents, steps) => {
          const budget = new SpendBudget({ capUsd: capCents / 100, estimatesUsd: { k: 0.02 } });
          const open: Reservation[] = [];
          const held: Reservation[] = [];
          for (const step of steps) {
            if (step.op === 'reserve') {
              const r = budget.tryReserve('k');
              if (r !== undefined) open.push(r);
            } else {
              const pool = step.op === 'settle' && held.length > 0 && step.pick % 2 === 0 ? held : open;
              const r = pool.splice(step.pick % Math.max(1, pool.length), 1)[0];
              if (r === undefined) continue;
              if (step.op === 'settle') r.settle(r.usd * step.fraction);
              else if (step.op === 'hold') {
                r.hold();
                held.push(r);
              } else r.release();
            }
            expect(budget.spentUsd + budget.reservedUsd).toBeLessThanOrEqual(budget.capUsd + 1e-9);
          }
        },
      ),
    );
  });
});

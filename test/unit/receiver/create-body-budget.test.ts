/**
 * The body budget's line (issue 42): a delivery that does not fit waits, first come first served, for room
 * given back, at most its wait; the clock is held still (fake setTimeout), so waits end when told to.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBodyBudget } from '../../../src/receiver/create-body-budget.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A budget with its reports recorded. */
function budgetOf(limitBytes: number, maxWaiting?: number) {
  const refused: number[] = [];
  const waited: Array<{ ms: number; admitted: boolean }> = [];
  let refusals = 0;
  const budget = createBodyBudget(limitBytes, {
    onRefused: () => {
      refusals += 1;
      refused.push(refusals);
    },
    onWaited: (ms, admitted) => waited.push({ ms, admitted }),
    ...(maxWaiting !== undefined ? { maxWaiting } : {}),
  });
  return { budget, refused, waited };
}

/** Lets the promise callbacks run without moving the clock. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('createBodyBudget', () => {
  it('takes what fits at once, without a wait', async () => {
    const { budget, waited } = budgetOf(100);
    expect(await budget.reserve(60, 1000)).toBe(true);
    expect(await budget.reserve(40, 1000)).toBe(true);
    expect(budget.inUse()).toBe(100);
    expect(waited).toEqual([]);
  });

  it('lets a waiting delivery in when room is given back, and says how long it waited', async () => {
    const { budget, waited, refused } = budgetOf(100);
    await budget.reserve(80, 1000);
    let admitted: boolean | undefined;
    void budget.reserve(50, 1000).then((ok) => {
      admitted = ok;
    });
    await settle();
    expect(budget.waiting()).toBe(1);
    expect(admitted).toBeUndefined();
    await vi.advanceTimersByTimeAsync(300);
    budget.release(80);
    await settle();
    expect(admitted).toBe(true);
    expect(budget.inUse()).toBe(50);
    expect(budget.waiting()).toBe(0);
    expect(waited).toEqual([{ ms: 300, admitted: true }]);
    expect(refused).toEqual([]);
  });

  it('gives up at the end of the wait: nothing taken, one refusal', async () => {
    const { budget, waited, refused } = budgetOf(100);
    await budget.reserve(80, 1000);
    const answer = budget.reserve(50, 1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(budget.waiting()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toBe(false);
    expect(budget.inUse()).toBe(80);
    expect(budget.waiting()).toBe(0);
    expect(waited).toEqual([{ ms: 1000, admitted: false }]);
    expect(refused).toHaveLength(1);
    // Room given back later takes no one in, and counts from what is held.
    budget.release(80);
    expect(budget.inUse()).toBe(0);
  });

  it('keeps arrival order: a small body does not pass a large one waiting before it', async () => {
    const { budget } = budgetOf(100);
    await budget.reserve(70, 1000);
    const order: string[] = [];
    void budget.reserve(90, 1000).then((ok) => ok && order.push('large'));
    // It would fit now (70 + 20), but the large one is first in line.
    void budget.reserve(20, 1000).then((ok) => ok && order.push('small'));
    await settle();
    expect(budget.waiting()).toBe(2);
    expect(order).toEqual([]);
    budget.release(70);
    await settle();
    expect(order).toEqual(['large']);
    budget.release(90);
    await settle();
    expect(order).toEqual(['large', 'small']);
  });

  it('lets in those behind a head whose wait ended, when they fit', async () => {
    const { budget } = budgetOf(100);
    await budget.reserve(70, 1000);
    const large = budget.reserve(90, 100);
    await settle();
    const small = budget.reserve(20, 1000);
    await settle();
    expect(budget.waiting()).toBe(2);
    await vi.advanceTimersByTimeAsync(100);
    expect(await large).toBe(false);
    expect(await small).toBe(true);
    expect(budget.inUse()).toBe(90);
  });

  it('refuses at once with no wait allowed, with the line full, or a body that could never fit', async () => {
    const { budget, refused } = budgetOf(100, 1);
    await budget.reserve(100, 1000);
    expect(await budget.reserve(10, 0)).toBe(false);
    expect(await budget.reserve(101, 1000)).toBe(false);
    void budget.reserve(10, 1000);
    await settle();
    expect(budget.waiting()).toBe(1);
    expect(await budget.reserve(10, 1000)).toBe(false);
    expect(refused).toHaveLength(3);
    expect(budget.inUse()).toBe(100);
  });

  it('admits now only with room and no line, counting no refusal when it cannot', async () => {
    const { budget, refused } = budgetOf(100);
    expect(budget.admitNow(60)).toBe(true);
    expect(budget.admitNow(60)).toBe(false);
    void budget.reserve(60, 1000);
    await settle();
    // 30 fits, but a delivery waits before it.
    expect(budget.admitNow(30)).toBe(false);
    expect(budget.inUse()).toBe(60);
    expect(refused).toEqual([]);
  });

  it('grows an admitted body (tryReserve) without regard to the line', async () => {
    const { budget } = budgetOf(100);
    await budget.reserve(50, 1000);
    void budget.reserve(60, 1000);
    await settle();
    expect(budget.tryReserve(30)).toBe(true);
    expect(budget.tryReserve(30)).toBe(false);
    expect(budget.inUse()).toBe(80);
  });

  it('never holds more than its limit, and lets the line in in arrival order (any sequence)', async () => {
    type Step =
      | { kind: 'reserve'; bytes: number; waitMs: number }
      | { kind: 'release' }
      | { kind: 'tick'; ms: number };
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('reserve' as const),
        bytes: fc.integer({ min: 0, max: 120 }),
        waitMs: fc.integer({ min: 0, max: 50 }),
      }),
      fc.record({ kind: fc.constant('release' as const) }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 30 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps: Step[]) => {
        const { budget } = budgetOf(100, 4);
        const held: number[] = [];
        const admitted: number[] = [];
        let arrival = 0;
        for (const s of steps) {
          if (s.kind === 'reserve') {
            const id = arrival++;
            void budget.reserve(s.bytes, s.waitMs).then((ok) => {
              if (!ok) return;
              held.push(s.bytes);
              admitted.push(id);
            });
          } else if (s.kind === 'release') {
            const bytes = held.shift();
            if (bytes !== undefined) budget.release(bytes);
          } else {
            await vi.advanceTimersByTimeAsync(s.ms);
          }
          await settle();
          expect(budget.inUse()).toBeLessThanOrEqual(100);
          expect(budget.inUse()).toBe(held.reduce((sum, bytes) => sum + bytes, 0));
        }
        // Straight in only with no one waiting, and the line in its order: admissions come in arrival order.
        expect(admitted).toEqual([...admitted].sort((a, b) => a - b));
        await vi.advanceTimersByTimeAsync(100);
        expect(budget.waiting()).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});

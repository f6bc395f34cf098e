import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Pacer, pacingWindowMs } from '../../../src/client/pacer.js';

/**
 * A fake clock whose sleep advances time only after every pending promise callback has run
 * (setImmediate), so a caller that records `now()` when its token arrives sees the grant time.
 */
function fakeTime(startMs = 1_000_000) {
  let t = startMs;
  const requested: number[] = [];
  return {
    now: () => t,
    requested,
    advance(ms: number) {
      t += ms;
    },
    sleep: async (ms: number) => {
      requested.push(ms);
      await new Promise((resolve) => setImmediate(resolve));
      t += ms;
    },
  };
}

const windowOf = pacingWindowMs;

/** The largest number of grants inside any half-open window [t, t + intervalMs). */
function maxInWindow(times: readonly number[], intervalMs: number): number {
  let best = 0;
  for (let i = 0; i < times.length; i++) {
    let j = i;
    while (j < times.length && times[j]! < times[i]! + intervalMs) j++;
    best = Math.max(best, j - i);
  }
  return best;
}

async function burst(pacer: Pacer, clock: { now: () => number }, count: number) {
  const order: number[] = [];
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      pacer.acquire().then((permit) => {
        order.push(i);
        times.push(clock.now());
        permit.release();
      }),
    ),
  );
  return { order, times };
}

describe('Pacer', () => {
  it('lets a full bucket through at once, then one interval later, in FIFO order', async () => {
    const time = fakeTime();
    const start = time.now();
    const limit = { perInterval: 10, intervalSeconds: 1 };
    const pacer = new Pacer({ limits: [limit], now: time.now, sleep: time.sleep });
    const { order, times } = await burst(pacer, time, 25);
    expect(order).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(times.slice(0, 10).every((t) => t === start)).toBe(true);
    expect(times.slice(10, 20).every((t) => t === start + windowOf(limit))).toBe(true);
    expect(times.slice(20).every((t) => t === start + 2 * windowOf(limit))).toBe(true);
    expect(maxInWindow(times, 1000)).toBe(10);
    expect(pacer.stats).toMatchObject({ requestsSent: 25, waits: 15 });
    expect(pacer.stats.waitedMs).toBe(10 * windowOf(limit) + 5 * 2 * windowOf(limit));
  });

  it('never exceeds any rate in any window, and sends as early as the rates allow (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            perInterval: fc.integer({ min: 1, max: 12 }),
            intervalSeconds: fc.integer({ min: 1, max: 90 }),
          }),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        fc.integer({ min: 1, max: 40 }),
        async (limits, count) => {
          const time = fakeTime();
          const pacer = new Pacer({ limits, now: time.now, sleep: time.sleep });
          const { order, times } = await burst(pacer, time, count);
          expect(order).toEqual(Array.from({ length: count }, (_, i) => i));
          for (const limit of limits) {
            expect(maxInWindow(times, limit.intervalSeconds * 1000)).toBeLessThanOrEqual(limit.perInterval);
          }
          // Each grant happens exactly when the strictest rate frees a token, not later.
          for (let i = 0; i < count; i++) {
            let expected = times[0]!;
            for (const limit of limits) {
              const previous = times[i - limit.perInterval];
              if (previous !== undefined) expected = Math.max(expected, previous + windowOf(limit));
            }
            expect(times[i]).toBe(expected);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('drains the bucket after a 429 until Retry-After, then resumes', async () => {
    const time = fakeTime();
    const start = time.now();
    const pacer = new Pacer({
      limits: [{ perInterval: 50, intervalSeconds: 60 }],
      now: time.now,
      sleep: time.sleep,
    });
    (await pacer.acquire()).release();
    pacer.noteRateLimited(7_000);
    expect(pacer.stats.blockedUntilMs).toBe(start + 7_000);
    const { times } = await burst(pacer, time, 3);
    expect(times).toEqual([start + 7_000, start + 7_000, start + 7_000]);
    expect(pacer.stats.rateLimitedResponses).toBe(1);
    expect(pacer.stats.blockedUntilMs).toBe(0);
  });

  it('without Retry-After, a 429 blocks for the longest window in force', async () => {
    const time = fakeTime();
    const start = time.now();
    const limit = { perInterval: 5, intervalSeconds: 2 };
    const pacer = new Pacer({ limits: [limit], now: time.now, sleep: time.sleep });
    pacer.noteRateLimited();
    (await pacer.acquire()).release();
    expect(time.now()).toBe(start + windowOf(limit));
  });

  it('adopts new limits for callers already waiting', async () => {
    const time = fakeTime();
    const start = time.now();
    const pacer = new Pacer({
      limits: [{ perInterval: 2, intervalSeconds: 10 }],
      now: time.now,
      sleep: time.sleep,
    });
    const first = await burst(pacer, time, 2);
    expect(first.times).toEqual([start, start]);
    pacer.setLimits([{ perInterval: 4, intervalSeconds: 10 }]);
    const second = await burst(pacer, time, 3);
    // Two more tokens were free at once under the new rate; the third waits for the window.
    expect(second.times).toEqual([start, start, start + windowOf({ perInterval: 4, intervalSeconds: 10 })]);
  });

  it('a caller that aborts while queued leaves the queue with its reason; the rest keep their order', async () => {
    const time = fakeTime();
    const pacer = new Pacer({
      limits: [{ perInterval: 1, intervalSeconds: 1 }],
      now: time.now,
      sleep: time.sleep,
    });
    (await pacer.acquire()).release();
    const controller = new AbortController();
    const order: string[] = [];
    const a = pacer.acquire().then((p) => {
      p.release();
      order.push('a');
    });
    const b = pacer.acquire(controller.signal).then(
      () => order.push('b'),
      (reason: unknown) => order.push(`b aborted: ${String(reason)}`),
    );
    const c = pacer.acquire().then(() => order.push('c'));
    controller.abort('gone');
    await Promise.all([a, b, c]);
    expect(order).toEqual(['b aborted: gone', 'a', 'c']);
    expect(pacer.stats.requestsSent).toBe(3);
  });

  it('a token stays spent while its request is in flight and returns one window after it ends', async () => {
    const time = fakeTime();
    const start = time.now();
    const limit = { perInterval: 2, intervalSeconds: 1 };
    const pacer = new Pacer({ limits: [limit], now: time.now, sleep: time.sleep });
    const first = await pacer.acquire();
    const second = await pacer.acquire();
    let thirdAt: number | undefined;
    const third = pacer.acquire().then((permit) => {
      thirdAt = time.now();
      permit.release();
    });
    // Both tokens are out: nothing to time, so the pacer sleeps not at all until one comes back.
    await new Promise((resolve) => setImmediate(resolve));
    expect(thirdAt).toBeUndefined();
    expect(time.requested).toEqual([]);
    time.advance(5_000);
    second.release();
    second.release();
    await third;
    expect(thirdAt).toBe(start + 5_000 + windowOf(limit));
    first.release();
  });

  it('refuses nonsense rates with TypeError', () => {
    expect(() => new Pacer({ limits: [] })).toThrow(TypeError);
    expect(() => new Pacer({ limits: [{ perInterval: 0, intervalSeconds: 1 }] })).toThrow(TypeError);
    expect(() => new Pacer({ limits: [{ perInterval: 1.5, intervalSeconds: 1 }] })).toThrow(TypeError);
    expect(() => new Pacer({ limits: [{ perInterval: 5, intervalSeconds: 0 }] })).toThrow(TypeError);
    expect(() => new Pacer({ limits: [{ perInterval: 5, intervalSeconds: Number.NaN }] })).toThrow(TypeError);
  });
});

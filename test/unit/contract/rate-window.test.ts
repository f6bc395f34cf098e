import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertWindowRate, RateWindow } from '../../../src/contract/rate-window.js';

describe('RateWindow', () => {
  it('takes `requests` in a span, then says when the oldest leaves', () => {
    const window = new RateWindow({ requests: 3, perMs: 10_000 });
    for (const t of [0, 1000, 2000]) expect(window.take(t)).toBe(true);
    expect(window.take(2500)).toBe(false);
    expect(window.waitMs(2500)).toBe(7500);
    // A request at t counts while t + perMs > now: at exactly 10 s the first place is free.
    expect(window.take(9999)).toBe(false);
    expect(window.take(10_000)).toBe(true);
    expect(window.count(10_000)).toBe(3);
  });

  it('counts requests held outside the log (in flight) until they are recorded', () => {
    const window = new RateWindow({ requests: 2, perMs: 1000 });
    expect(window.roomAtMs(0, 1)).toBe(0);
    expect(window.roomAtMs(0, 2)).toBe(Number.POSITIVE_INFINITY);
    window.record(100);
    // One in flight and one finished at 100: room once the finished one leaves.
    expect(window.roomAtMs(200, 1)).toBe(1100);
    expect(window.roomAtMs(1100, 1)).toBe(1100);
  });

  it('keeps its log in time order whatever order requests are recorded in', () => {
    const window = new RateWindow({ requests: 2, perMs: 1000 }, [500, 100]);
    window.record(300);
    expect(window.times).toEqual([100, 300, 500]);
    expect(window.roomAtMs(600)).toBe(1300);
  });

  it('refuses a rate that is not a positive count over a positive span', () => {
    expect(() => assertWindowRate({ requests: 0, perMs: 1000 })).toThrow(TypeError);
    expect(() => assertWindowRate({ requests: 1.5, perMs: 1000 })).toThrow(TypeError);
    expect(() => assertWindowRate({ requests: 1, perMs: 0 })).toThrow(TypeError);
    expect(() => assertWindowRate({ requests: 1, perMs: Number.POSITIVE_INFINITY })).toThrow(TypeError);
  });

  it('never lets more than `requests` into any span, and a take after waitMs succeeds (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 60 }),
        (requests, perMs, gaps) => {
          const window = new RateWindow({ requests, perMs });
          const taken: number[] = [];
          let t = 0;
          for (const gap of gaps) {
            t += gap;
            if (window.take(t)) taken.push(t);
            else {
              const wait = window.waitMs(t);
              expect(wait).toBeGreaterThan(0);
              expect(window.take(t + wait)).toBe(true);
              t += wait;
              taken.push(t);
            }
          }
          for (const start of taken) {
            expect(taken.filter((at) => at >= start && at < start + perMs).length).toBeLessThanOrEqual(
              requests,
            );
          }
        },
      ),
    );
  });
});

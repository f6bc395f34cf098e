import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admitRequest, createAccountRateLimiter, RateWindow } from '../../../src/simulator/rate-window.js';

describe('RateWindow', () => {
  it('admits perInterval requests, then refuses with the seconds until the oldest leaves', () => {
    const window = new RateWindow({ perInterval: 3, intervalSeconds: 10 });
    for (const t of [0, 1000, 2000]) expect(admitRequest([window], t)).toBeUndefined();
    const refusal = admitRequest([window], 2500);
    expect(refusal).toEqual({
      limit: { perInterval: 3, intervalSeconds: 10 },
      retryAfterSeconds: 8,
      remaining: 0,
    });
    // Refused requests are not counted: at 10 s the first slot is free again.
    expect(admitRequest([window], 9999)).toBeDefined();
    expect(admitRequest([window], 10_000)).toBeUndefined();
  });

  it('Retry-After is truthful: a retry after it is admitted (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 2000 }), { minLength: 1, maxLength: 40 }),
        (perInterval, intervalSeconds, gaps) => {
          const window = new RateWindow({ perInterval, intervalSeconds });
          let t = 0;
          for (const gap of gaps) {
            t += gap;
            const refusal = admitRequest([window], t);
            if (refusal !== undefined) {
              expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
              expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(intervalSeconds);
              t += refusal.retryAfterSeconds * 1000;
              expect(admitRequest([window], t)).toBeUndefined();
            }
          }
        },
      ),
    );
  });

  it('a request needs room in every window, and the longest wait is reported', () => {
    const account = new RateWindow({ perInterval: 5, intervalSeconds: 60 });
    const key = new RateWindow({ perInterval: 2, intervalSeconds: 2 });
    expect(admitRequest([account, key], 0)).toBeUndefined();
    expect(admitRequest([account, key], 0)).toBeUndefined();
    expect(admitRequest([account, key], 0)?.limit).toEqual({ perInterval: 2, intervalSeconds: 2 });
    for (const t of [2000, 2000, 4000]) expect(admitRequest([account, key], t)).toBeUndefined();
    const refusal = admitRequest([account, key], 4000);
    expect(refusal?.limit).toEqual({ perInterval: 5, intervalSeconds: 60 });
    expect(refusal?.retryAfterSeconds).toBe(56);
  });
});

describe('createAccountRateLimiter', () => {
  it('shares the account window between keys and keeps one window per key', () => {
    const limiter = createAccountRateLimiter({ perInterval: 3, intervalSeconds: 60 });
    const slow = { perInterval: 1, intervalSeconds: 60 };
    const fast = { perInterval: 3, intervalSeconds: 60 };
    expect(limiter.admit('a', slow, 0)).toBeUndefined();
    expect(limiter.admit('a', slow, 1)?.limit).toEqual(slow);
    expect(limiter.admit('b', fast, 2)).toBeUndefined();
    expect(limiter.admit('b', fast, 3)).toBeUndefined();
    expect(limiter.admit('b', fast, 4)?.limit).toEqual({ perInterval: 3, intervalSeconds: 60 });
    limiter.clear();
    expect(limiter.admit('a', slow, 5)).toBeUndefined();
  });
});

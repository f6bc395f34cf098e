import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocationAllows,
  callsLeft,
  parseLimitInfo,
} from '../../../../src/destinations/salesforce/limit-info.js';

describe('parseLimitInfo', () => {
  it('reads api-usage=N/M, alone or beside per-app usage', () => {
    expect(parseLimitInfo('api-usage=10018/100000')).toEqual({ used: 10018, max: 100000 });
    expect(parseLimitInfo('api-usage=25/5000; per-app-api-usage=17/250(appName=sample-app)')).toEqual({
      used: 25,
      max: 5000,
    });
    expect(parseLimitInfo('per-app-api-usage=17/250(appName=x), api-usage=3/15000')).toEqual({
      used: 3,
      max: 15000,
    });
  });

  it('is undefined for a missing or malformed header', () => {
    for (const header of [
      null,
      undefined,
      '',
      'api-usage=',
      'api-usage=1/0',
      'api-usage=a/5',
      'per-app-api-usage=1/2',
      'xapi-usage=1/2',
    ])
      expect(parseLimitInfo(header)).toBeUndefined();
  });
});

describe('allocationAllows', () => {
  it('keeps the org 1 − max_share of its allocation', () => {
    const usage = { used: 4_999, max: 10_000 };
    expect(allocationAllows(usage, 0.5)).toBe(true); // 5,000 left after: exactly half
    expect(allocationAllows(usage, 0.5, 2)).toBe(false);
    expect(allocationAllows({ used: 5_000, max: 10_000 }, 0.5)).toBe(false);
    expect(allocationAllows({ used: 9_000, max: 10_000 }, 1)).toBe(true);
    expect(allocationAllows(undefined, 0.5, 1_000)).toBe(true);
    expect(() => allocationAllows(usage, 0)).toThrow(TypeError);
  });

  it('agrees with callsLeft for any usage and share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (max, used, share) => {
          const usage = { used: Math.min(used, max), max };
          const left = callsLeft(usage, share)!;
          if (left > 0) expect(allocationAllows(usage, share, left)).toBe(true);
          expect(allocationAllows(usage, share, left + 1)).toBe(false);
        },
      ),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ISO_DATE_TIME_PATTERN } from '../../../src/contract/envelope.js';
import { formatServiceDate, preciseNow } from '../../../src/simulator/service-date.js';

describe('formatServiceDate', () => {
  it('writes microseconds and a +00:00 offset', () => {
    expect(formatServiceDate(Date.UTC(2026, 10, 22, 10, 11, 12, 123) + 0.456)).toBe(
      '2026-11-22T10:11:12.123456+00:00',
    );
    expect(formatServiceDate(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000000+00:00');
  });

  it('always matches the contract date-time pattern and keeps the millisecond part', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 4_102_444_800_000, noNaN: true }), (timeMs) => {
        const text = formatServiceDate(timeMs);
        expect(text).toMatch(ISO_DATE_TIME_PATTERN);
        expect(Date.parse(text)).toBe(Math.floor(timeMs));
      }),
    );
  });

  it('refuses a non-finite time', () => {
    expect(() => formatServiceDate(Number.NaN)).toThrow(TypeError);
  });

  it('the default clock has sub-millisecond digits', () => {
    const samples = Array.from({ length: 20 }, () => formatServiceDate(preciseNow()).slice(23, 26));
    expect(samples.some((micros) => micros !== '000')).toBe(true);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../src/config/parse-duration.js';

describe('parseDuration', () => {
  it.each([
    ['0s', 0],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['250ms', 250],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    [' 90s ', 90_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '15', 'm', '15x', '-5m', '15 m', '1h 30m', 'abc', '5m!'])('refuses %j, naming it', (text) => {
    expect(() => parseDuration(text)).toThrow(TypeError);
    expect(() => parseDuration(text)).toThrow(`"${text}" is not a duration`);
  });

  it('adds the parts of any well-formed duration', () => {
    const units = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
    const part = fc.tuple(
      fc.nat({ max: 10_000 }),
      fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
        const text = parts.map(([n, unit]) => `${n}${unit}`).join('');
        const expected = parts.reduce((sum, [n, unit]) => sum + n * units[unit], 0);
        expect(parseDuration(text)).toBe(expected);
      }),
    );
  });
});

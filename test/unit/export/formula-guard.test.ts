import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  guardFormula,
  isPlainNumber,
  startsFormula,
  unguardFormula,
} from '../../../src/export/formula-guard.js';

const FORMULA_START =
  /^[=+\-@\t\r\n\uff1d\uff0b\uff0d\uff20\ufe66\ufe62\ufe63\ufe6b\u2212\u2795\u2796\u207a\u207b\u208a\u208b]/u;

describe('guardFormula', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+cmd', "'+cmd"],
    ['-Head of Growth', "'-Head of Growth"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['\nx', "'\nx"],
    ['＝1+2', "'＝1+2"],
    ['＋1', "'＋1"],
    ['－1', "'－1"],
    ['＠x', "'＠x"],
    ['\u22123', "'\u22123"],
    ['  =1+1', "'  =1+1"],
    ['\u200b=1', "'\u200b=1"],
    ['+33 1 23 45 67 89', "'+33 1 23 45 67 89"],
    ['-1+2', "'-1+2"],
    ["'=x", "''=x"],
    ["''@x", "'''@x"],
  ])('neutralises %j', (value, expected) => {
    expect(guardFormula(value)).toBe(expected);
  });

  it.each(['-3', '+42', '1.5e3', '-.5', '-0', '12', '', 'plain text', "'90s kid", 'a=b', 'José', '田中'])(
    'leaves %j unchanged',
    (value) => {
      expect(guardFormula(value)).toBe(value);
    },
  );

  it('guards numbers a spreadsheet would not read as plain numbers', () => {
    expect(isPlainNumber('1e400')).toBe(false); // not finite
    expect(guardFormula('-1e400')).toBe("'-1e400");
    expect(isPlainNumber(' -3')).toBe(false);
    expect(guardFormula(' -3')).toBe("' -3");
    expect(isPlainNumber('0x10')).toBe(false);
  });

  it('never leaves a formula start, except on plain numbers (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite' }), fc.string(), (a, b) => {
        for (const value of [a, b, `=${a}`, `-${b}`, `\uff1d${a}`]) {
          const cell = guardFormula(value);
          if (FORMULA_START.test(cell.replace(/^[\s\u200b-\u200d\u2060\ufeff]*/u, ''))) {
            expect(isPlainNumber(cell)).toBe(true);
          }
          expect(startsFormula(cell)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is undone exactly by unguardFormula (property)', () => {
    const quoted = fc.tuple(fc.nat(3), fc.string()).map(([n, s]) => "'".repeat(n) + s);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), quoted), (value) => {
        expect(unguardFormula(guardFormula(value))).toBe(value);
      }),
      { numRuns: 1000 },
    );
  });
});

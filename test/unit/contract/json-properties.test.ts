import fc from 'fast-check';
import { parse as parseLossless } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { parseJsonText, stringifyJson } from '../../../src/contract/json.js';

const RUNS = { seed: 42, numRuns: 500 };
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The reference: lossless-json's own parser with the number rule parseJsonText promises (an integer
 * token beyond the safe range is a bigint, anything else what Number gives), keeping the last value
 * of a repeated key as JSON.parse does.
 */
function parseReference(text: string): unknown {
  return parseLossless(text, null, {
    parseNumber: (token) => {
      const n = Number(token);
      return /^-?\d+$/.test(token) && !Number.isSafeInteger(n) ? BigInt(token) : n;
    },
    onDuplicateKey: ({ newValue }) => newValue,
  });
}

const bigInteger = fc.oneof(
  fc.bigInt({ min: MAX_SAFE + 1n, max: 2n ** 70n }),
  fc.bigInt({ min: -(2n ** 70n), max: -(MAX_SAFE + 1n) }),
  fc.constantFrom(MAX_SAFE + 1n, -(MAX_SAFE + 1n), 10n ** 16n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n),
);
const safeInteger = fc.oneof(
  fc.maxSafeInteger(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
);
// JSON writes an integral double under 1e21 as bare digits, so one beyond the safe range reads back as
// a bigint, by design; and -0 writes as 0. Neither can round-trip, so neither is generated.
const double = fc
  .double({ noNaN: true, noDefaultInfinity: true })
  .filter(
    (d) => !Object.is(d, -0) && !(Number.isInteger(d) && !Number.isSafeInteger(d) && Math.abs(d) < 1e21),
  );

/** Strings made to trip a scanner: quotes, backslashes, escapes, digit runs, structural characters. */
const STRING_PIECES = [
  '"',
  '\\',
  '\\"',
  '"\\',
  '\n',
  '\u2028',
  '\u0000',
  '-',
  '.',
  'e',
  ':',
  ',',
  '[',
  '}',
  ' ',
  'x',
];
const trickyString = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...STRING_PIECES),
    bigInteger.map(String),
    safeInteger.map(String),
    fc.string({ maxLength: 3 }),
  ),
  maxLength: 8,
});
const key = fc.oneof(trickyString, fc.constantFrom('__proto__', 'constructor', '0', '12345678901234567890'));

type JsonWithBigInts = { value: unknown; array: unknown[]; object: Record<string, unknown> };
const { value: jsonWithBigInts } = fc.letrec<JsonWithBigInts>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(bigInteger, safeInteger, double, trickyString, fc.boolean(), fc.constant(null)),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5, noNullPrototype: true }),
}));

const whitespace = fc.constantFrom('', ' ', '\n', '\t', '\r\n  ');
const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
const longOrShortDigits = fc.oneof(digits(1, 3), digits(16, 25));
/** Every shape of JSON number: sign, integer part, fraction, exponent; mostly integers near 2^53 and past it. */
const numberToken = fc
  .tuple(
    fc.constantFrom('', '-'),
    fc.oneof(
      fc.constant('0'),
      fc
        .tuple(fc.constantFrom(...'123456789'), fc.oneof(digits(0, 4), digits(14, 16), digits(17, 25)))
        .map(([a, b]) => a + b),
      fc.constantFrom('9007199254740991', '9007199254740992', '9007199254740993', '9999999999999999'),
    ),
    fc.oneof(
      { arbitrary: fc.constant(''), weight: 3 },
      longOrShortDigits.map((d) => `.${d}`),
    ),
    fc.oneof(
      { arbitrary: fc.constant(''), weight: 3 },
      fc
        .tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), longOrShortDigits)
        .map((parts) => parts.join('')),
    ),
  )
  .map((parts) => parts.join(''));

/** JSON text written by hand rather than by JSON.stringify: any number token, any spacing. */
const { text: handWrittenJson } = fc.letrec<{ text: string; array: string; object: string }>((tie) => ({
  text: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(
      numberToken,
      trickyString.map((s) => JSON.stringify(s)),
      fc.constantFrom('true', 'false', 'null'),
    ),
    tie('array'),
    tie('object'),
  ),
  array: fc
    .tuple(fc.array(fc.tuple(whitespace, tie('text'), whitespace), { maxLength: 5 }), whitespace)
    .map(
      ([items, space]) => `[${items.map((parts) => parts.join('')).join(',')}${items.length ? '' : space}]`,
    ),
  object: fc
    .array(fc.tuple(whitespace, key, whitespace, whitespace, tie('text'), whitespace), { maxLength: 5 })
    .map(
      (members) =>
        `{${members.map(([a, k, b, c, v, d]) => `${a}${JSON.stringify(k)}${b}:${c}${v}${d}`).join(',')}}`,
    ),
}));

// toEqual rather than toStrictEqual: a "constructor" key defeats the latter's class check, and toEqual
// still tells -0 from 0, a bigint from a number, and an own "__proto__" key from a prototype.
describe('parseJsonText properties', () => {
  it('reads back what stringifyJson wrote, big integers exact and strings untouched', () => {
    fc.assert(
      fc.property(jsonWithBigInts, fc.constantFrom(undefined, 2, '\t'), (value, space) => {
        expect(parseJsonText(stringifyJson(value, space))).toEqual(value);
      }),
      RUNS,
    );
  });

  it('agrees with the reference parser on JSON.stringify texts of any JSON value', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseJsonText(text)).toEqual(parseReference(text));
      }),
      RUNS,
    );
  });

  it('agrees with the reference parser on texts holding big integers, spaced any way', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          handWrittenJson,
          jsonWithBigInts.map((value) => stringifyJson(value, '\r\n')),
        ),
        (text) => {
          expect(parseJsonText(text)).toEqual(parseReference(text));
        },
      ),
      RUNS,
    );
  });

  it('throws SyntaxError exactly where JSON.parse does, and agrees with the reference elsewhere', () => {
    const edit = fc.tuple(fc.nat(), fc.nat(2), fc.constantFrom(...'"\\,:[]{}-.e0123456789 x'));
    fc.assert(
      fc.property(handWrittenJson, edit, (text, [at, kind, char]) => {
        const i = at % (text.length + 1);
        const edited =
          kind === 0
            ? text.slice(0, i) + text.slice(i + 1)
            : kind === 1
              ? text.slice(0, i) + char + text.slice(i)
              : text.slice(0, i) + char + text.slice(i + 1);
        let valid = true;
        try {
          JSON.parse(edited);
        } catch {
          valid = false;
        }
        if (valid) expect(parseJsonText(edited)).toEqual(parseReference(edited));
        else expect(() => parseJsonText(edited)).toThrow(SyntaxError);
      }),
      { seed: 42, numRuns: 2000 },
    );
  });
});

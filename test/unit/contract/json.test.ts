import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText, stringifyJson } from '../../../src/contract/json.js';
import { readEnvelopeFixtureText } from './envelope-fixtures.js';

describe('parseJsonText', () => {
  it('keeps 9007199254740993 exact as a bigint', () => {
    expect(parseJsonText('{"total_funding_usd":9007199254740993}')).toEqual({
      total_funding_usd: 9007199254740993n,
    });
    expect(parseJsonText('[-9223372036854775808, 18446744073709551616]')).toEqual([
      -9223372036854775808n,
      18446744073709551616n,
    ]);
  });

  it('keeps safe integers and decimals as numbers, even next to a long digit run', () => {
    const parsed = parseJsonText(
      '{"a":9007199254740991,"b":-9007199254740991,"c":0.1234567890123456789,"d":1e400,"s":"12345678901234567890","e":12345678901234567890e2}',
    );
    expect(parsed).toEqual({
      a: 9007199254740991,
      b: -9007199254740991,
      c: 0.12345678901234568,
      d: Number.POSITIVE_INFINITY,
      s: '12345678901234567890',
      e: 1.2345678901234568e21,
    });
  });

  it('keeps the fixture int64 exact and everything else as JSON.parse reads it', () => {
    const text = readEnvelopeFixtureText('company-reveal');
    const parsed = parseJsonText(text) as {
      output: { company: { funding_details: { total_funding_usd: unknown } } };
    };
    expect(parsed.output.company.funding_details.total_funding_usd).toBe(9007199254740993n);
    const plain = JSON.parse(text) as typeof parsed;
    plain.output.company.funding_details.total_funding_usd = 9007199254740993n;
    expect(parsed).toEqual(plain);
  });

  it.each<[string, unknown]>([
    ['9007199254740991', 9007199254740991],
    ['9007199254740992', 9007199254740992n],
    ['-9007199254740991', -9007199254740991],
    ['-9007199254740992', -9007199254740992n],
    ['9999999999999999', 9999999999999999n],
    ['-0', -0],
    ['[-0,12345678901234567890]', [-0, 12345678901234567890n]],
    ['[1e21,12345678901234567890]', [1e21, 12345678901234567890n]],
    [
      '[1E+400,-1e400,12345678901234567890]',
      [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 12345678901234567890n],
    ],
    ['[12345678901234567890.0,12345678901234567890]', [12345678901234567000, 12345678901234567890n]],
    [
      '[1e-12345678901234567890,1e+12345678901234567890,-12345678901234567890]',
      [0, Number.POSITIVE_INFINITY, -12345678901234567890n],
    ],
    [
      '[0.12345678901234567890123,1.5e-7,12345678901234567890]',
      [0.12345678901234568, 1.5e-7, 12345678901234567890n],
    ],
    [' \r\n\t-12345678901234567890\n ', -12345678901234567890n],
    ['[1,\n  12345678901234567890\n]', [1, 12345678901234567890n]],
    ['{"a":{"b":[true,null,98765432109876543210]}}', { a: { b: [true, null, 98765432109876543210n] } }],
    ['{"total":\n\t 340282366920938463463374607431768211456\r\n}', { total: 2n ** 128n }],
  ])('reads %j exactly', (text, expected) => {
    expect(parseJsonText(text)).toStrictEqual(expected);
  });

  it('leaves digits inside strings and keys alone, escapes and all', () => {
    const text = String.raw`{"12345678901234567890":12345678901234567890,"s":"12345678901234567890","q":"\"12345678901234567890\"","b":"\\","n":-12345678901234567891,"u":"\u0031234567890123456789 and 1e400, 12345678901234567890]","m":"123e4567-e89b-42d3-a456-426614174000-12345678901234567890"}`;
    expect(parseJsonText(text)).toStrictEqual({
      '12345678901234567890': 12345678901234567890n,
      s: '12345678901234567890',
      q: '"12345678901234567890"',
      b: '\\',
      n: -12345678901234567891n,
      u: '1234567890123456789 and 1e400, 12345678901234567890]',
      m: '123e4567-e89b-42d3-a456-426614174000-12345678901234567890',
    });
  });

  it('keeps a __proto__ key an own property, as JSON.parse does', () => {
    const parsed = parseJsonText(
      '{"__proto__":12345678901234567890,"x":{"__proto__":[12345678901234567891]}}',
    );
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe(12345678901234567890n);
    const inner = (parsed as { x: object }).x;
    expect(Object.getOwnPropertyDescriptor(inner, '__proto__')?.value).toEqual([12345678901234567891n]);
  });

  it.each([
    '',
    '{',
    '{"a":1,}',
    "{'a':1}",
    '[1 2]',
    'NaN',
    '{"a":12345678901234567890',
    '12345678901234567890 x',
    '{12345678901234567890:1}',
    '[0012345678901234567890]',
    '[-12345678901234567890.]',
    '["12345678901234567890]',
    '[12345678901234567890',
  ])('throws SyntaxError for %j', (text) => {
    expect(() => parseJsonText(text)).toThrow(SyntaxError);
  });

  it('agrees with JSON.parse on any JSON text, except that unsafe integers become bigints', () => {
    const unsafeBigints: bigint[] = [];
    const toNumbers = (value: unknown): unknown => {
      if (typeof value === 'bigint') {
        unsafeBigints.push(value);
        return Number(value);
      }
      if (Array.isArray(value)) return value.map(toNumbers);
      if (typeof value === 'object' && value !== null) {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toNumbers(v)]));
      }
      return value;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const parsed = parseJsonText(text);
        if (!/\d{16}/.test(text)) expect(parsed).toStrictEqual(JSON.parse(text));
        expect(toNumbers(parsed)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
    for (const n of unsafeBigints) expect(Number.isSafeInteger(Number(n))).toBe(false);
  });

  it('reads documents nested deeper than the call stack, refusing big integers in them', () => {
    const depth = 100_000;
    const plain = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    let node = parseJsonText(plain);
    for (let i = 0; i < depth; i++) node = (node as unknown[])[0];
    expect(node).toBe(1);
    const withBig = `${'['.repeat(depth)}12345678901234567890${']'.repeat(depth)}`;
    expect(() => parseJsonText(withBig)).toThrow(SyntaxError);
  });

  it('keeps the last value of a repeated key, as JSON.parse does, with or without big integers', () => {
    expect(parseJsonText('{"a":1,"a":2}')).toEqual({ a: 2 });
    expect(parseJsonText('{"a":1,"a":2,"b":12345678901234567890}')).toEqual({
      a: 2,
      b: 12345678901234567890n,
    });
    expect(parseJsonText('{"a":12345678901234567890,"a":1}')).toEqual({ a: 1 });
    expect(parseJsonText('{"a":12345678901234567890,"a":12345678901234567891}')).toEqual({
      a: 12345678901234567891n,
    });
    const last = parseJsonText('{"a":1,"b":2,"a":-12345678901234567890}') as Record<string, unknown>;
    expect(last).toEqual({ a: -12345678901234567890n, b: 2 });
    expect(Object.keys(last)).toEqual(['a', 'b']);
  });

  it('reads a document nested deep next to a long array, or to an exponent beyond the safe range', () => {
    const depth = 50_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const depthOf = (value: unknown): number => {
      let levels = 0;
      for (let node = value; Array.isArray(node); node = node[0]) levels++;
      return levels;
    };
    const zeros = new Array<number>(200_000).fill(0);
    const [nested, long] = parseJsonText(`[${deep},[${zeros.join(',')}]]`) as [unknown, unknown];
    expect(depthOf(nested)).toBe(depth);
    expect(long).toEqual(zeros);
    const [nestedToo, infinite] = parseJsonText(`[${deep},1e400]`) as [unknown, unknown];
    expect(depthOf(nestedToo)).toBe(depth);
    expect(infinite).toBe(Number.POSITIVE_INFINITY);
  });

  it('round-trips big integers through stringifyJson', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }), (n) => {
        const text = stringifyJson({ n, list: [n] });
        const back = parseJsonText(text) as { n: unknown; list: unknown[] };
        const expected =
          n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
        expect(back).toEqual({ n: expected, list: [expected] });
      }),
    );
  });
});

describe('stringifyJson', () => {
  it('writes bigints as their digits and everything else as JSON.stringify', () => {
    expect(stringifyJson({ a: 9007199254740993n, b: [1, 'x', null, true], c: { d: 0.5 } })).toBe(
      '{"a":9007199254740993,"b":[1,"x",null,true],"c":{"d":0.5}}',
    );
    const value = { d: new Date(0), u: undefined, n: Number.NaN, nested: [undefined] };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
    expect(stringifyJson({ a: [1] }, 2)).toBe(JSON.stringify({ a: [1] }, null, 2));
  });

  it('refuses what JSON cannot hold at the top level', () => {
    expect(() => stringifyJson(undefined)).toThrow(TypeError);
  });

  it('round-trips the fixtures byte for byte after normalising whitespace', () => {
    const text = readEnvelopeFixtureText('company-reveal');
    expect(stringifyJson(parseJsonText(text))).toBe(
      JSON.stringify(JSON.parse(text.replace('9007199254740993', '"X"'))).replace('"X"', '9007199254740993'),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CALENDAR_DATE_PATTERN,
  CALENDAR_DATE_TIME_PATTERN,
  ISO_DATE_TIME_PATTERN,
  int64Schema,
  isAbsoluteUri,
  isCalendarDate,
  isHttpUrl,
  isIpv4,
  isIsoDate,
  isIsoDateTime,
  isoDateSchema,
  isoDateTimeSchema,
  uuidSchema,
} from '../../../src/contract/formats.js';
import { contractErrorMap, formatZodIssues } from '../../../src/contract/validation.js';

describe('formats', () => {
  it('knows the calendar', () => {
    expect(isCalendarDate(2024, 2, 29)).toBe(true);
    expect(isCalendarDate(2000, 2, 29)).toBe(true);
    expect(isCalendarDate(1900, 2, 29)).toBe(false);
    expect(isCalendarDate(2023, 2, 29)).toBe(false);
    expect(isCalendarDate(2023, 4, 31)).toBe(false);
    expect(isCalendarDate(2023, 12, 31)).toBe(true);
    expect(isCalendarDate(2023, 0, 1)).toBe(false);
    expect(isIsoDate('2023-12-31')).toBe(true);
    expect(isIsoDate('2023-12-32')).toBe(false);
    expect(isIsoDate('2023-12-31 ')).toBe(false);
    expect(isIsoDateTime('2023-02-29T00:00:00Z')).toBe(false);
    expect(isIsoDateTime('2024-02-29T00:00:00.000001-11:30')).toBe(true);
  });

  it.each([
    ['https://hooks.example.com/a?b=c#d', true, true],
    ['http://127.0.0.1:8080/', true, true],
    ['ftp://files.example.com/x', true, false],
    ['mailto:ops@example.com', true, false],
    [' https://hooks.example.com/', false, false],
    ['https://hooks.example.com/a b', false, false],
    ['https://hooks.example.com/\n', false, false],
    ['/relative/path', false, false],
    ['hooks.example.com', false, false],
    ['', false, false],
  ])('%j: uri %s, http(s) %s', (value, uri, http) => {
    expect(isAbsoluteUri(value)).toBe(uri);
    expect(isHttpUrl(value)).toBe(http);
  });

  it('gives the same answer however often it is asked (URL.canParse on Node 20 does not)', () => {
    const host = 'https://\u00e9.example/';
    const answers = new Set<boolean>();
    for (let i = 0; i < 50_000; i += 1) answers.add(isAbsoluteUri(host));
    expect([...answers]).toEqual([true]);
  });

  it('reads IPv4 addresses strictly', () => {
    expect(isIpv4('192.0.2.1')).toBe(true);
    expect(isIpv4('192.0.2.01')).toBe(false);
    expect(isIpv4('192.0.2.1\n')).toBe(false);
    expect(isIpv4(3221225985)).toBe(false);
  });

  it('takes UUIDs of any version and int64 values as number or bigint', () => {
    expect(uuidSchema.safeParse('00000000-0000-0000-0000-000000000000').success).toBe(true);
    expect(uuidSchema.safeParse('6F1C2B3A-4D5E-4F60-8A71-9B8C7D6E5F40').success).toBe(true);
    expect(uuidSchema.safeParse('6f1c2b3a4d5e4f608a719b8c7d6e5f40').success).toBe(false);
    expect(int64Schema.safeParse(2 ** 53 - 1).success).toBe(true);
    expect(int64Schema.safeParse(2 ** 53).success).toBe(false);
    expect(int64Schema.safeParse(2n ** 63n - 1n).success).toBe(true);
    expect(int64Schema.safeParse(-(2n ** 63n)).success).toBe(true);
    expect(int64Schema.safeParse(2n ** 63n).success).toBe(false);
  });
});

/** The calendar rule by arithmetic: the shape YYYY-MM-DD, then {@link isCalendarDate}. */
function isCalendarDateByArithmetic(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return m !== null && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

describe('CALENDAR_DATE_PATTERN', () => {
  it('agrees with the arithmetic on February 28 to 30 of every year 0000-9999', () => {
    const disagreements: string[] = [];
    for (let year = 0; year <= 9999; year++) {
      for (const day of [28, 29, 30]) {
        const date = `${pad(year, 4)}-02-${day}`;
        if (CALENDAR_DATE_PATTERN.test(date) !== isCalendarDateByArithmetic(date)) disagreements.push(date);
      }
    }
    expect(disagreements).toEqual([]);
    expect(isIsoDate('0000-02-29')).toBe(true);
    expect(isIsoDate('1900-02-29')).toBe(false);
    expect(isIsoDate('2000-02-29')).toBe(true);
    expect(isIsoDate('2100-02-29')).toBe(false);
  });

  it('agrees with the arithmetic on every month 00-13 and day 00-32 of leap, common and century years', () => {
    const disagreements: string[] = [];
    for (const year of [1, 4, 100, 400, 1900, 1999, 2000, 2023, 2024, 2100, 9996]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const date = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          if (CALENDAR_DATE_PATTERN.test(date) !== isCalendarDateByArithmetic(date)) disagreements.push(date);
        }
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('agrees with the arithmetic on arbitrary strings', () => {
    const dateLike = fc
      .tuple(fc.nat(9999), fc.nat(99), fc.nat(99))
      .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
    const noisy = fc.oneof(
      dateLike,
      dateLike.map((date) => ` ${date}`),
      dateLike.map((date) => `${date}\n`),
      fc.string({ maxLength: 12 }),
      fc.stringMatching(/^[0-9\-\u0660-\u0669]{8,12}$/),
    );
    fc.assert(
      fc.property(noisy, (value) => CALENDAR_DATE_PATTERN.test(value) === isCalendarDateByArithmetic(value)),
      { seed: 11, numRuns: 3000 },
    );
  });
});

describe('CALENDAR_DATE_TIME_PATTERN', () => {
  /** The rule before it was one regex: ISO_DATE_TIME_PATTERN, then the calendar on its date part. */
  const byParts = (value: string): boolean => {
    const m = ISO_DATE_TIME_PATTERN.exec(value);
    return m !== null && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
  };

  it('is ISO_DATE_TIME_PATTERN plus a day that exists', () => {
    const dateTime = fc
      .record({
        y: fc.constantFrom(1900, 2000, 2023, 2024, 2100),
        mo: fc.nat(13),
        d: fc.nat(32),
        h: fc.nat(25),
        mi: fc.nat(61),
        s: fc.nat(61),
        frac: fc.constantFrom('', '.', '.1', '.123456', '.1234567'),
        offset: fc.constantFrom('Z', 'z', '+00:00', '-05:30', '+14:00', '+24:00', '+0000', ''),
      })
      .map(
        (t) =>
          `${pad(t.y, 4)}-${pad(t.mo, 2)}-${pad(t.d, 2)}T${pad(t.h, 2)}:${pad(t.mi, 2)}:${pad(t.s, 2)}${t.frac}${t.offset}`,
      );
    fc.assert(
      fc.property(fc.oneof(dateTime, fc.string({ maxLength: 40 })), (value) => {
        expect(CALENDAR_DATE_TIME_PATTERN.test(value)).toBe(byParts(value));
        expect(isIsoDateTime(value)).toBe(byParts(value));
      }),
      { seed: 12, numRuns: 5000 },
    );
  });
});

describe('date and date-time schemas', () => {
  const issuesOf = (schema: typeof isoDateSchema, value: unknown): string[] => {
    const result = schema.safeParse(value, { error: contractErrorMap });
    return result.success ? [] : formatZodIssues(result.error);
  };

  it.each([
    ['2024-02-29', []],
    ['2023-02-29', ['body: must be a real calendar date YYYY-MM-DD']],
    ['2023-2-28', ['body: must be a real calendar date YYYY-MM-DD']],
    [20230228, ['body: must be a date YYYY-MM-DD']],
    [null, ['body: must be a date YYYY-MM-DD']],
    [undefined, ['body: is required']],
  ])('isoDateSchema words %j as %j', (value, issues) => {
    expect(issuesOf(isoDateSchema, value)).toEqual(issues);
  });

  const RULE =
    'body: must be an ISO 8601 date-time with seconds and an offset, e.g. 2026-03-04T10:11:12.123456+00:00';
  it.each([
    ['2024-02-29T10:11:12.123456+02:00', []],
    ['2023-02-29T10:11:12+02:00', [RULE]],
    ['2023-02-28T10:11:12', [RULE]],
    [1772619073, ['body: must be an ISO 8601 date-time string']],
    [undefined, ['body: is required']],
  ])('isoDateTimeSchema words %j as %j', (value, issues) => {
    expect(issuesOf(isoDateTimeSchema, value)).toEqual(issues);
  });
});

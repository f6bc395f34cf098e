import { describe, expect, it } from 'vitest';
import {
  int64Schema,
  isAbsoluteUri,
  isCalendarDate,
  isHttpUrl,
  isIpv4,
  isIsoDate,
  isIsoDateTime,
  uuidSchema,
} from '../../../src/contract/formats.js';

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

/**
 * Scalar formats the interface uses again and again (UUIDs, dates, date-times, int32/int64, URIs,
 * IPv4), as zod schemas and plain predicates.
 */
import { z } from 'zod';

/**
 * A schema-level error message for a value of the wrong type that leaves a missing value to the
 * contract error map ("is required").
 */
export function typeError(message: string): { error: (issue: { input?: unknown }) => string | undefined } {
  return { error: (issue) => (issue.input === undefined ? undefined : message) };
}

/**
 * A UUID in its textual form, 8-4-4-4-12 hex digits. The interface names no version, so any version
 * and variant is accepted (a stricter RFC 9562 check would flag ids the service may legitimately use).
 */
export const uuidSchema = z.guid(typeError('must be a UUID'));

/** True when `year-month-day` exists in the proleptic Gregorian calendar. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

/**
 * `YYYY-MM-DD` of a day that exists in the proleptic Gregorian calendar, as regex source without
 * captures: 31-day months, 30-day months, February to the 28th, and February 29th of a leap year (a
 * year divisible by 4 but not by 100, or by 400, read off its last two digits or, for a century, its
 * first two).
 */
const CALENDAR_DATE_SOURCE =
  '(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))' +
  '|(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';

/**
 * A real calendar date written `YYYY-MM-DD` (2024-02-29 yes, 2023-02-29 no). One anchored regex, so
 * that a schema checks it with zod's own `.regex()` instead of a refinement: several times cheaper than
 * capturing the parts and doing the arithmetic of {@link isCalendarDate}, which it agrees with.
 */
export const CALENDAR_DATE_PATTERN = new RegExp(`^${CALENDAR_DATE_SOURCE}$`);

/** True for a real calendar date written `YYYY-MM-DD` (see {@link CALENDAR_DATE_PATTERN}). */
export function isIsoDate(value: string): boolean {
  return CALENDAR_DATE_PATTERN.test(value);
}

/** A date `YYYY-MM-DD` that exists in the calendar (2024-02-29 yes, 2023-02-29 no). */
export const isoDateSchema = z
  .string(typeError('must be a date YYYY-MM-DD'))
  .regex(CALENDAR_DATE_PATTERN, { error: 'must be a real calendar date YYYY-MM-DD' });

/** The time and offset of {@link ISO_DATE_TIME_PATTERN}, as regex source without captures. */
const TIME_WITH_OFFSET_SOURCE =
  'T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,6})?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';

/**
 * An ISO 8601 date-time as the service writes it (Job envelope): seconds required, fractional seconds
 * up to 6 digits (microseconds), and an offset required (`Z` or `±hh:mm`). The date part is checked
 * for shape only; {@link CALENDAR_DATE_TIME_PATTERN} also checks that the day exists.
 */
export const ISO_DATE_TIME_PATTERN =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,6})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** {@link ISO_DATE_TIME_PATTERN} restricted to days that exist in the calendar, in one anchored regex. */
export const CALENDAR_DATE_TIME_PATTERN = new RegExp(`^${CALENDAR_DATE_SOURCE}${TIME_WITH_OFFSET_SOURCE}$`);

/** True for a date-time matching {@link ISO_DATE_TIME_PATTERN} whose date exists in the calendar. */
export function isIsoDateTime(value: string): boolean {
  return CALENDAR_DATE_TIME_PATTERN.test(value);
}

/** A date-time with offset, microseconds allowed, kept as the exact string sent. */
export const isoDateTimeSchema = z
  .string(typeError('must be an ISO 8601 date-time string'))
  .regex(CALENDAR_DATE_TIME_PATTERN, {
    error: 'must be an ISO 8601 date-time with seconds and an offset, e.g. 2026-03-04T10:11:12.123456+00:00',
  });

/** An int32 (Company and FundingRound counters). */
export const int32Schema = z.int32(typeError('must be a 32-bit integer'));

/**
 * An int64: a safe-integer number, or a bigint in the int64 range for values JSON.parse would round
 * (parse with `parseJsonText` to keep them exact).
 */
export const int64Schema = z.union([z.int(), z.int64()], typeError('must be a 64-bit integer'));
export type Int64 = z.output<typeof int64Schema>;

/** Whitespace and control characters, which RFC 3986 never allows but the WHATWG parser strips or escapes. */
const NOT_IN_URI = /[\s\p{Cc}]/u;

/**
 * True when the WHATWG URL parser accepts `value`. Not URL.canParse: on Node 20 its optimized form
 * answers differently once warm (https://é.example/ is accepted at first, refused after a few thousand
 * calls), and a check must give the same answer every time.
 */
export function canParseUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** True for an absolute URI: no whitespace or control characters, and the WHATWG URL parser accepts it. */
export function isAbsoluteUri(value: string): boolean {
  return !NOT_IN_URI.test(value) && canParseUrl(value);
}

/** An absolute URI (format uri), kept exactly as sent (no trimming or normalising). */
export const uriSchema = z.string(typeError('must be a URI string')).refine(isAbsoluteUri, {
  error: 'must be an absolute URI',
});

/** True for an absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  if (!isAbsoluteUri(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/** A dotted-quad IPv4 address: four decimal numbers 0-255 without leading zeros. */
export const IPV4_PATTERN =
  /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;

/** True for a dotted-quad IPv4 address (see {@link IPV4_PATTERN}). */
export function isIpv4(value: unknown): value is string {
  return typeof value === 'string' && IPV4_PATTERN.test(value);
}

/** A dotted-quad IPv4 address (format ipv4). */
export const ipv4Schema = z
  .string(typeError('must be an IPv4 address string'))
  .regex(IPV4_PATTERN, { error: 'must be a dotted-quad IPv4 address (0-255, no leading zeros)' });

/** A string of `min` to `max` characters (UTF-16 code units, as the service's JSON Schema counts). */
export function boundedString(min: number, max: number): z.ZodString {
  const rule = `must be ${min} to ${max} characters long`;
  return z.string(typeError('must be a string')).min(min, { error: rule }).max(max, { error: rule });
}

/** A string or null. */
export const nullableStringSchema = z.string(typeError('must be a string or null')).nullable();

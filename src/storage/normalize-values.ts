/**
 * Lenient readers for normalization: whatever an envelope holds, they return a value the column accepts
 * or null, and never throw (an envelope that does not fit its schema is still stored and normalized).
 */
import { stringifyJson } from '../contract/json.js';

/** A plain JSON object as a record; undefined for null, arrays and scalars. */
export type JsonRecord = Readonly<Record<string, unknown>>;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INTEGER_DIGITS = /^-?\d+$/;

/** `value` when it is a non-array object. */
export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonRecord)
    : undefined;
}

/** The member `key` of `record`, when both exist. */
export function member(record: JsonRecord | undefined, key: string): unknown {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** `record[key]` as an object, or undefined. */
export function recordAt(record: JsonRecord | undefined, key: string): JsonRecord | undefined {
  return asRecord(member(record, key));
}

/**
 * A string as text; a number or bigint as its decimal text; anything else null. U+0000 is dropped:
 * Postgres text cannot hold it, and both dialects must store the same rows.
 */
export function textOrNull(value: unknown): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** `record[key]` through {@link textOrNull}. */
export function textAt(record: JsonRecord | undefined, key: string): string | null {
  return textOrNull(member(record, key));
}

/** An integer within int32 (the interface's int32 fields and the columns' range), else null. */
export function int32At(record: JsonRecord | undefined, key: string): number | null {
  const value = member(record, key);
  const n = typeof value === 'bigint' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX ? n : null;
}

/** An int64 as its exact decimal digits (bigint from parseJsonText, a safe number, or a digit string). */
export function int64DigitsAt(record: JsonRecord | undefined, key: string): string | null {
  const value = member(record, key);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value).toString();
  if (typeof value === 'string' && INTEGER_DIGITS.test(value)) return value;
  return null;
}

/** An array as JSON text (bigints as digits); `[]` when the member is missing or not an array. */
export function jsonArrayAt(record: JsonRecord | undefined, key: string): string {
  const value = member(record, key);
  return Array.isArray(value) ? stringifyJson(value) : '[]';
}

/** An object as JSON text; `{}` when the member is missing or not an object. */
export function jsonObjectAt(record: JsonRecord | undefined, key: string): string {
  const value = recordAt(record, key);
  return value === undefined ? '{}' : stringifyJson(value);
}

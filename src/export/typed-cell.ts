/**
 * typedCell(text, type): a rendered cell as the value a typed export writes: null for an empty cell, a
 * number or bigint for an integer, a boolean, epoch milliseconds for a timestamp. A cell that is not of its
 * column's type is a TemplateError naming the column: a template declared a type its values do not have.
 */
import { TemplateError } from '../errors.js';
import type { ValueType } from './template-schema.js';

/** A typed cell: what JSON lines and Parquet write. */
export type TypedValue = string | number | bigint | boolean | null;

const INTEGER = /^[+-]?\d+$/;
const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

/**
 * The value of `text` as `type` (timestamps as epoch milliseconds, integers as a bigint when `wide`, else a
 * number). Throws TemplateError naming `header` when it is not one.
 */
export function typedCell(text: string, type: ValueType, header: string, wide = false): TypedValue {
  if (text === '') return null;
  switch (type) {
    case 'string':
      return text;
    case 'integer': {
      const trimmed = text.trim();
      if (!INTEGER.test(trimmed)) throw notA(header, 'an integer', text);
      if (wide) return BigInt(trimmed);
      const n = Number(trimmed);
      if (!Number.isSafeInteger(n)) throw notA(header, 'an integer within ±2^53', text);
      return n;
    }
    case 'boolean': {
      const lower = text.trim().toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      throw notA(header, 'a boolean (true/false, 1/0, yes/no)', text);
    }
    case 'timestamp': {
      const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
      if (Number.isNaN(ms)) throw notA(header, 'an ISO 8601 date-time', text);
      return ms;
    }
  }
}

function notA(header: string, what: string, text: string): TemplateError {
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return new TemplateError('TEMPLATE_INVALID', `column ${header}: "${shown}" is not ${what}`);
}

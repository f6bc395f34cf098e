/**
 * The transforms a template column can apply (docs/templates.md, "Transforms"), each compiled once into a
 * function over a cell's value, and the one conversion of any value into cell text.
 */
import { stringifyJson } from '../contract/json.js';
import type { ValueTable } from './parse-template.js';
import type { Transform } from './template-schema.js';

/** A compiled transform: the value so far and a way to read another field of the same row. */
export type CompiledTransform = (value: unknown, readField: (path: string) => unknown) => unknown;

/** The text of a value in a cell: empty for null and undefined (never "null"), JSON for arrays and objects. */
export function toCellText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? String(value) : '';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return value === null ? '' : stringifyJson(value);
    default:
      return '';
  }
}

/** Compiles one transform; `tables` holds the value tables the template names. */
export function compileTransform(
  transform: Transform,
  tables: ReadonlyMap<string, ValueTable>,
): CompiledTransform {
  switch (transform.op) {
    case 'join': {
      const { separator } = transform;
      return (value) =>
        Array.isArray(value)
          ? value
              .map(toCellText)
              .filter((s) => s !== '')
              .join(separator)
          : toCellText(value);
    }
    case 'date':
      return formatDate(transform.format);
    case 'map':
      return mapValues(transform, tables);
    case 'default': {
      const { value: fallback, unless } = transform;
      return (value, readField) =>
        toCellText(value) !== '' || (unless !== undefined && toCellText(readField(unless)) !== '')
          ? value
          : fallback;
    }
    case 'split': {
      const { separator, index, minParts } = transform;
      return (value) => {
        const parts = toCellText(value)
          .split(separator)
          .map((p) => p.trim());
        if (parts.length < minParts) return '';
        return parts.at(index) ?? '';
      };
    }
    case 'blankIf': {
      const values = new Set(transform.in);
      const { field } = transform;
      return (value, readField) => (values.has(toCellText(readField(field))) ? '' : value);
    }
    case 'truncate': {
      const { length } = transform;
      return (value) => truncate(toCellText(value), length);
    }
    case 'case':
      return transform.to === 'lower'
        ? (value) => toCellText(value).toLowerCase()
        : (value) => toCellText(value).toUpperCase();
  }
}

/** Cuts to at most `length` UTF-16 units without splitting a surrogate pair. */
function truncate(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})/;

/** Dates and date-times as the service sends them (and hooksync's timestamps); anything else is blank. */
function formatDate(format: Extract<Transform, { op: 'date' }>['format']): CompiledTransform {
  return (value) => {
    const text = toCellText(value);
    const match = DATE_PREFIX.exec(text);
    if (match === null) return '';
    const [, y, m, d] = match;
    switch (format) {
      case 'YYYY-MM-DD':
        return `${y}-${m}-${d}`;
      case 'MM/DD/YYYY':
        return `${m}/${d}/${y}`;
      case 'DD/MM/YYYY':
        return `${d}/${m}/${y}`;
      case 'YYYY':
        return y;
      case 'iso': {
        // A calendar date stays a date; a date-time becomes UTC (Salesforce and HubSpot read either).
        if (text.length === 10) return text;
        const ms = Date.parse(text);
        return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
      }
    }
  };
}

/**
 * Loose matching for industry-like names: case, punctuation, "&" versus "and" and spacing do not count
 * ("Information Technology & Services" matches "Information Technology and Services").
 */
export function looseKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/&/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((w) => w !== '' && w !== 'and')
    .join(' ');
}

function mapValues(
  transform: Extract<Transform, { op: 'map' }>,
  tables: ReadonlyMap<string, ValueTable>,
): CompiledTransform {
  const keyOf = transform.match === 'loose' ? looseKey : (s: string) => s;
  // A Map, not an object: a value such as "constructor" must not find Object.prototype's.
  const lookup = new Map<string, string>();
  const add = (table: ValueTable): void => {
    for (const [from, to] of Object.entries(table)) lookup.set(keyOf(from), to);
  };
  if (transform.table !== undefined) {
    const table = tables.get(transform.table);
    if (table === undefined) throw new TypeError(`value table ${transform.table} was not loaded`);
    add(table);
  }
  if (transform.values !== undefined) add(transform.values);
  const keep = transform.otherwise === 'keep';
  return (value) => {
    const text = toCellText(value);
    if (text === '') return '';
    const mapped = lookup.get(keyOf(text));
    if (mapped !== undefined) return mapped;
    // Unmapped: blank by default, so that an importer with a closed value set never gets a made-up value.
    return keep ? text : '';
  };
}

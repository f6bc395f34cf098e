/**
 * A cell's text as the value of the field it fills: integers as numbers, lists as comma-separated values
 * or a JSON array, objects and object lists as JSON. What cannot be read is a problem naming the field;
 * whether the value is allowed is left to the contract's parser.
 */
import type { CellType } from './field-types.js';

/** A typed value, or why the text could not be read as the field's type. */
export type TypedCell = { readonly value: unknown } | { readonly problem: string };

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * Types `text` for `field` of type `type`. The caller drops empty cells first (an empty cell means the
 * field is not given). Values that are not strings (JSON lines) are kept as they are.
 */
export function typeCell(field: string, type: CellType, text: unknown): TypedCell {
  if (typeof text !== 'string') return { value: text };
  const trimmed = text.trim();
  switch (type) {
    case 'string':
      return { value: trimmed };
    case 'integer':
    case 'number': {
      const pattern = type === 'integer' ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
      if (!pattern.test(trimmed))
        return { problem: `${field}: "${trimmed}" is not ${type === 'integer' ? 'an integer' : 'a number'}` };
      return { value: Number(trimmed) };
    }
    case 'boolean': {
      const lower = trimmed.toLowerCase();
      if (lower === 'true' || lower === 'false') return { value: lower === 'true' };
      return { problem: `${field}: "${trimmed}" is not true or false` };
    }
    case 'list': {
      if (trimmed.startsWith('[')) {
        const parsed = parseJson(trimmed);
        if (parsed === undefined || !Array.isArray(parsed.value)) {
          return { problem: `${field}: starts with "[" but is not a JSON array` };
        }
        return parsed;
      }
      return {
        value: trimmed
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      };
    }
    case 'object-list': {
      const parsed = parseJson(trimmed);
      if (parsed === undefined)
        return { problem: `${field}: must be JSON, e.g. [{"name":"...","filter":"..."}]` };
      // One object is taken as a list of one, as a cell most often holds a single filter.
      if (parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value)) {
        return { value: [parsed.value] };
      }
      return parsed;
    }
    case 'object': {
      const parsed = parseJson(trimmed);
      if (parsed === undefined) return { problem: `${field}: must be a JSON object` };
      return parsed;
    }
  }
}

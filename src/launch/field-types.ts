/**
 * What kind of value each request field takes, read from the contract's own schemas (src/contract/), so
 * that a cell is typed by the field it fills and a field added to the contract is typed without a change here.
 */
import type { z } from 'zod';

/** How a cell's text becomes a field's value. */
export type CellType = 'string' | 'integer' | 'number' | 'boolean' | 'list' | 'object-list' | 'object';

interface SchemaDef {
  readonly type: string;
  readonly format?: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly element?: z.ZodType;
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { def: SchemaDef }).def;
}

/** Optional, nullable, default and transform wrappers peeled off: the schema of the value itself. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth += 1) {
    const def = defOf(current);
    const next = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (next === undefined) return current;
    current = next;
  }
  return current;
}

/** The cell type of one field's schema; a list of objects (title_filters) is written as JSON. */
export function cellTypeOf(schema: z.ZodType): CellType {
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case 'number':
      return def.format !== undefined && /int/.test(def.format) ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'array': {
      const element = def.element === undefined ? undefined : defOf(unwrap(def.element));
      return element?.type === 'object' ? 'object-list' : 'list';
    }
    case 'object':
    case 'custom':
      return 'object';
    default:
      return 'string';
  }
}

/** Every field of an object schema's shape with its cell type. */
export function fieldTypesOf(shape: Readonly<Record<string, z.ZodType>>): ReadonlyMap<string, CellType> {
  return new Map(Object.entries(shape).map(([name, schema]) => [name, cellTypeOf(schema)]));
}

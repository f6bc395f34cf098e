/**
 * defineFields: a source's field catalog from compact tuples (name, type, where it comes from, SQL per
 * branch).
 */
import type { FieldType, SourceField } from './export-sources.js';

/** One field as written in a source file: name, type, origin, then its SQL in each branch. */
export type FieldSpec = readonly [name: string, type: FieldType, from: string, ...sql: string[]];

/** The catalog of a source, by field name. */
export function defineFields(specs: readonly FieldSpec[]): ReadonlyMap<string, SourceField> {
  return new Map(specs.map(([name, type, from, ...sql]) => [name, { name, type, from, sql }]));
}

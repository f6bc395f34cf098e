/**
 * defineFields: a source's field catalog from compact tuples (name, type, where it comes from, SQL per
 * branch).
 */
import type { FieldType, SourceField } from './export-sources.js';

/**
 * One field as written in a source file: name, type, origin, then its SQL in each branch, or
 * `envelope:KEY` for a field read from the stored envelope (KEY of the source's `fromEnvelope` record), or
 * `texts:about` for a person's about, read from the job's person_texts row.
 */
export type FieldSpec = readonly [name: string, type: FieldType, from: string, ...sql: string[]];

const FROM_ENVELOPE = 'envelope:';
const FROM_TEXTS = 'texts:';

/** The catalog of a source, by field name. */
export function defineFields(specs: readonly FieldSpec[]): ReadonlyMap<string, SourceField> {
  return new Map(
    specs.map(([name, type, from, ...sql]) => {
      const first = sql[0] ?? '';
      // Selected as NULL in every branch; the export fills it in from the job's person texts.
      if (first.startsWith(FROM_TEXTS)) return [name, { name, type, from, sql: ['NULL'], texts: true }];
      if (!first.startsWith(FROM_ENVELOPE)) return [name, { name, type, from, sql }];
      // Selected as NULL in every branch; the export fills it in from the envelope.
      return [name, { name, type, from, sql: ['NULL'], envelope: first.slice(FROM_ENVELOPE.length) }];
    }),
  );
}

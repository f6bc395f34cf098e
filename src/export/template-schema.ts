/**
 * The export template file format (docs/templates.md), as zod schemas: a template names its source rows,
 * its dialect, an optional row filter and its columns (header → field path → transforms).
 */
import { z } from 'zod';
import { JOB_CHANGE_STATUSES } from '../contract/enums.js';
import { CSV_DIALECT_NAMES } from './csv-dialects.js';
import { SOURCE_NAMES } from './export-sources.js';
import { startsFormula } from './formula-guard.js';

/** Longest header a template may declare (importers cap column names well below this). */
export const MAX_HEADER_LENGTH = 200;
/** The separator `join` uses when the template names none. */
export const DEFAULT_JOIN_SEPARATOR = '; ';

const fieldPath = z.string().min(1, 'must name a field').max(200);

/** The transforms a column can apply, in order (docs/templates.md, "Transforms"). */
export const transformSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('join'), separator: z.string().default(DEFAULT_JOIN_SEPARATOR) }),
  z.strictObject({
    op: z.literal('date'),
    format: z.enum(['YYYY-MM-DD', 'MM/DD/YYYY', 'DD/MM/YYYY', 'YYYY', 'iso']),
  }),
  z
    .strictObject({
      op: z.literal('map'),
      values: z.record(z.string(), z.string()).optional(),
      table: z.string().min(1).optional(),
      match: z.enum(['exact', 'loose']).default('exact'),
      otherwise: z.enum(['blank', 'keep']).default('blank'),
    })
    .refine((t) => t.values !== undefined || t.table !== undefined, 'map needs "values" or "table"'),
  // `unless`: no default where that field holds a value (a row keyed by a record id: empty means unchanged).
  z.strictObject({ op: z.literal('default'), value: z.string(), unless: fieldPath.optional() }),
  z.strictObject({
    op: z.literal('split'),
    separator: z.string().min(1),
    index: z.int(),
    minParts: z.int().min(1).default(1),
  }),
  z.strictObject({ op: z.literal('blankIf'), field: fieldPath, in: z.array(z.string()).min(1) }),
  z.strictObject({ op: z.literal('truncate'), length: z.int().min(1) }),
  z.strictObject({ op: z.literal('case'), to: z.enum(['lower', 'upper']) }),
]);
/** One transform of a column. */
export type Transform = z.infer<typeof transformSchema>;

/** The types a column's values can take in typed exports (JSON lines, Parquet). */
export const VALUE_TYPES = ['string', 'integer', 'boolean', 'timestamp'] as const;
/** One of {@link VALUE_TYPES}. */
export type ValueType = (typeof VALUE_TYPES)[number];

/** One column: a header and exactly one of field, firstOf, concat or value. */
export const columnSchema = z
  .strictObject({
    header: z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_HEADER_LENGTH)
      .refine((h) => !startsFormula(h) && !h.startsWith("'"), 'must not start with = + - @ or a quote'),
    field: fieldPath.optional(),
    firstOf: z.array(fieldPath).min(1).optional(),
    concat: z
      .strictObject({ fields: z.array(fieldPath).min(1), separator: z.string().default(' ') })
      .optional(),
    value: z.string().optional(),
    transforms: z.array(transformSchema).default([]),
    /** The column's type in typed exports; default: its field's, when it is one field untransformed. */
    type: z.enum(VALUE_TYPES).optional(),
    description: z.string().optional(),
  })
  .refine(
    (c) => [c.field, c.firstOf, c.concat, c.value].filter((v) => v !== undefined).length === 1,
    'needs exactly one of "field", "firstOf", "concat" or "value"',
  );
/** One column as written in a template file. */
export type TemplateColumn = z.infer<typeof columnSchema>;

/** The template file. */
export const templateSchema = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,99}$/, 'must be lower-case letters, digits, - and _'),
  description: z.string().min(1),
  source: z.enum(SOURCE_NAMES),
  dialect: z.enum(CSV_DIALECT_NAMES),
  filter: z
    .strictObject({
      job_change_status: z.array(z.enum(JOB_CHANGE_STATUSES)).min(1).optional(),
      present: z.array(fieldPath).min(1).optional(),
    })
    .optional(),
  dedupe: z.boolean().default(true),
  columns: z.array(columnSchema).min(1, 'a template needs at least one column'),
  notes: z.array(z.string()).optional(),
});
/** A template file after schema validation (defaults applied). */
export type TemplateFile = z.infer<typeof templateSchema>;

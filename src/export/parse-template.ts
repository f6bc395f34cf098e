/**
 * parseTemplate(value, origin): a template file's JSON → a checked {@link ExportTemplate}. Every problem is
 * a TemplateError that names the file, the column (number and header) and what is wrong.
 */
import type { z } from 'zod';
import type { JobChangeStatus } from '../contract/enums.js';
import { TemplateError } from '../errors.js';
import type { CsvDialectName } from './csv-dialects.js';
import { EXPORT_SOURCES, type ExportSource, resolveFieldPath, type SourceName } from './export-sources.js';
import { type TemplateColumn, templateSchema } from './template-schema.js';

/** A value table of the `map` transform: source value → target value. */
export type ValueTable = Readonly<Record<string, string>>;

/** A template ready to export with: validated, its fields resolved against its source. */
export interface ExportTemplate {
  readonly name: string;
  readonly description: string;
  readonly source: SourceName;
  readonly dialect: CsvDialectName;
  /** Rows from Job Changes are kept only with one of these statuses; undefined keeps them all. */
  readonly jobChangeStatuses: readonly JobChangeStatus[] | undefined;
  /** Fields that must be non-empty for a row to be exported. */
  readonly present: readonly string[];
  /** One row per person (or company), the newest; false exports every occurrence. */
  readonly dedupe: boolean;
  readonly columns: readonly TemplateColumn[];
  readonly notes: readonly string[];
  /** Where it came from: a file path, or `built-in` for the templates shipped in templates/. */
  readonly origin: string;
  /** The value tables its `map` transforms name, resolved. */
  readonly valueTables: ReadonlyMap<string, ValueTable>;
}

/** Options of {@link parseTemplate}. */
export interface ParseTemplateOptions {
  /** Named in errors: the file path, or the built-in template's name. */
  readonly origin: string;
  /** The value tables that `map` transforms may name (loadTemplate reads them from disk). */
  readonly valueTables?: ReadonlyMap<string, ValueTable>;
}

/** Validates a parsed template file. Throws TemplateError('TEMPLATE_INVALID') naming file and column. */
export function parseTemplate(value: unknown, options: ParseTemplateOptions): ExportTemplate {
  const { origin } = options;
  const parsed = templateSchema.safeParse(value);
  if (!parsed.success) {
    throw invalid(
      origin,
      parsed.error.issues.slice(0, 5).map((issue) => describeIssue(issue, value)),
    );
  }
  const file = parsed.data;
  const source = EXPORT_SOURCES[file.source];
  const valueTables = options.valueTables ?? new Map<string, ValueTable>();
  const problems: string[] = [];

  const seen = new Map<string, number>();
  file.columns.forEach((column, index) => {
    const where = columnLabel(index, column.header);
    const first = seen.get(column.header);
    if (first !== undefined) problems.push(`${where}: header repeats column ${first + 1}`);
    else seen.set(column.header, index);
    for (const path of columnPaths(column)) {
      const problem = checkPath(source, path);
      if (problem !== undefined) problems.push(`${where}: ${problem}`);
    }
    column.transforms.forEach((transform, t) => {
      if (transform.op === 'blankIf') {
        const problem = checkPath(source, transform.field);
        if (problem !== undefined) problems.push(`${where}: transforms[${t}].field: ${problem}`);
      }
      if (transform.op === 'default' && transform.unless !== undefined) {
        const problem = checkPath(source, transform.unless);
        if (problem !== undefined) problems.push(`${where}: transforms[${t}].unless: ${problem}`);
      }
      if (transform.op === 'map' && transform.table !== undefined && !valueTables.has(transform.table)) {
        problems.push(`${where}: transforms[${t}].table: no value table "${transform.table}"`);
      }
    });
  });
  for (const path of file.filter?.present ?? []) {
    const problem = checkPath(source, path);
    if (problem !== undefined) problems.push(`filter.present: ${problem}`);
    else if ((resolveFieldPath(source, path)?.jsonPath.length ?? 0) > 0) {
      problems.push(`filter.present: "${path}" reaches into JSON; name the field itself`);
    }
  }
  if (file.filter?.job_change_status !== undefined && source.name === 'companies') {
    problems.push('filter.job_change_status: source companies has no job changes');
  }
  if (problems.length > 0) throw invalid(origin, problems);

  return Object.freeze({
    name: file.name,
    description: file.description,
    source: file.source,
    dialect: file.dialect,
    jobChangeStatuses: file.filter?.job_change_status,
    present: file.filter?.present ?? [],
    dedupe: file.dedupe,
    columns: file.columns,
    notes: file.notes ?? [],
    origin,
    valueTables,
  });
}

/** The field paths a column reads (not counting blankIf's). */
export function columnPaths(column: TemplateColumn): readonly string[] {
  if (column.field !== undefined) return [column.field];
  if (column.firstOf !== undefined) return column.firstOf;
  if (column.concat !== undefined) return column.concat.fields;
  return [];
}

function checkPath(source: ExportSource, path: string): string | undefined {
  if (resolveFieldPath(source, path) !== undefined) return undefined;
  const head = path.split('.')[0] ?? path;
  const field = source.fields.get(head);
  if (field !== undefined && field.type !== 'json')
    return `field "${path}": ${head} is not JSON, no path goes into it`;
  return `unknown field "${path}" for source ${source.name} (see hooksync templates show, or docs/templates.md)`;
}

function columnLabel(index: number, header: unknown): string {
  return typeof header === 'string' ? `column ${index + 1} "${header}"` : `column ${index + 1}`;
}

/** "column 3 "industry": transforms[0].op: ..." from a zod issue, reading the header from the raw input. */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const path = issue.path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys')
    message = `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if (path[0] === 'columns' && typeof path[1] === 'number') {
    const header = headerAt(raw, path[1]);
    const rest = formatPath(path.slice(2));
    return `${columnLabel(path[1], header)}${rest === '' ? '' : `: ${rest}`}: ${message}`;
  }
  const where = formatPath(path);
  return where === '' ? message : `${where}: ${message}`;
}

function headerAt(raw: unknown, index: number): unknown {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const columns = (raw as { columns?: unknown }).columns;
  if (!Array.isArray(columns)) return undefined;
  const column: unknown = columns[index];
  return typeof column === 'object' && column !== null ? (column as { header?: unknown }).header : undefined;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function invalid(origin: string, problems: readonly string[]): TemplateError {
  const [first, ...others] = problems;
  const more = others.length > 0 ? ` (and ${others.length} more: ${others.join('; ')})` : '';
  return new TemplateError('TEMPLATE_INVALID', `template ${origin}: ${first ?? 'invalid'}${more}`);
}

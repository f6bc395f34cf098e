/**
 * exportRows(db, template, options): the library entry for users who write to their own sink. Streams the
 * template's rows from the database as arrays of cell text, header order, in constant memory.
 */
import type { Kysely } from 'kysely';
import type { JobChangeStatus, JobKind } from '../contract/enums.js';
import type { Database } from '../storage/database.js';
import { createEnvelopeReader, createPersonTextsReader } from '../storage/envelope-reader.js';
import { buildExportQuery } from './build-export-query.js';
import { compileTemplate } from './compile-template.js';
import { EXPORT_SOURCES, isReadByExport, resolveFieldPath, type SourceField } from './export-sources.js';
import { guardFormula } from './formula-guard.js';
import type { ExportTemplate } from './parse-template.js';

/** Rows fetched per round trip from a Postgres cursor (SQLite streams row by row). */
export const DEFAULT_CHUNK_SIZE = 1000;

/** Which rows, and how their cells are shaped. */
export interface ExportRowsOptions {
  /** Only rows stored at or after this instant. */
  readonly since?: Date | string | undefined;
  /** Only rows stored before this instant. */
  readonly until?: Date | string | undefined;
  /** Only rows from jobs of this kind; must be one of the template source's kinds. */
  readonly kind?: JobKind | undefined;
  /** Only rows of this one job. */
  readonly jobId?: string | undefined;
  /** Only rows of these jobs (exportJobRows tells each row's job). */
  readonly jobIds?: readonly string[] | undefined;
  /** Only rows of the jobs that found a change of this watch, detected at or after `since` when given. */
  readonly watchChanges?: { readonly watch: string; readonly since?: Date | string | undefined } | undefined;
  /** Every occurrence of a person (or company), not only the newest (default false). */
  readonly all?: boolean | undefined;
  /**
   * Overrides the template's job_change_status filter: the statuses to keep (job changes only: rows that
   * are not job changes are dropped), or 'all' for no status filter at all. Default: the template's filter
   * (which lets rows that are not job changes through).
   */
  readonly jobChangeStatuses?: readonly JobChangeStatus[] | 'all' | undefined;
  /** Ignore the template's `present` filter, e.g. to include reveals that found no company (default false). */
  readonly includeEmpty?: boolean | undefined;
  /**
   * Apply the formula guard to each cell (default false: writeCsv guards; set it when your own sink is a
   * spreadsheet).
   */
  readonly formulaGuard?: boolean | undefined;
  /** Postgres cursor batch size (default {@link DEFAULT_CHUNK_SIZE}). */
  readonly chunkSize?: number | undefined;
}

/** The header row of a template. */
export function templateHeader(template: ExportTemplate): string[] {
  return template.columns.map((c) => c.header);
}

/** Normalises an instant to the form received_at is stored in (ISO 8601 UTC, milliseconds). */
export function toStoredInstant(value: Date | string, what: string): string {
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(ms)) throw new TypeError(`${what} is not a date-time: ${String(value)}`);
  return new Date(ms).toISOString();
}

/**
 * Streams the rows of `template` (arrays of cell text, empty for missing values). On Postgres the Kysely
 * dialect needs its `cursor` option (openDatabase sets it). On SQLite the connection stays busy until the
 * iteration ends or is broken off.
 */
export function exportRows(
  db: Kysely<Database>,
  template: ExportTemplate,
  options: ExportRowsOptions = {},
): AsyncGenerator<string[], void, undefined> {
  return streamRows(db, template, options, false, (cells) => cells);
}

/** A row of {@link exportJobRows}: the job it comes from and its cells. */
export interface JobRow {
  readonly jobId: string;
  readonly cells: string[];
}

/**
 * Streams the rows of `template` as {@link exportRows} does, each with the job it comes from: one query for
 * many jobs (`options.jobIds`) instead of one per job.
 */
export function exportJobRows(
  db: Kysely<Database>,
  template: ExportTemplate,
  options: ExportRowsOptions = {},
): AsyncGenerator<JobRow, void, undefined> {
  return streamRows(db, template, options, true, (cells, jobId) => ({ jobId: String(jobId), cells }));
}

async function* streamRows<T>(
  db: Kysely<Database>,
  template: ExportTemplate,
  options: ExportRowsOptions,
  keyed: boolean,
  emit: (cells: string[], jobId: unknown) => T,
): AsyncGenerator<T, void, undefined> {
  const compiled = compileTemplate(template);
  const statuses =
    options.jobChangeStatuses === 'all'
      ? undefined
      : (options.jobChangeStatuses ?? template.jobChangeStatuses);
  const query = buildExportQuery(db, EXPORT_SOURCES[template.source], compiled.fields, {
    since: options.since === undefined ? undefined : toStoredInstant(options.since, 'since'),
    until: options.until === undefined ? undefined : toStoredInstant(options.until, 'until'),
    kind: options.kind,
    jobId: options.jobId,
    jobIds: options.jobIds,
    watchChanges:
      options.watchChanges === undefined
        ? undefined
        : {
            watch: options.watchChanges.watch,
            since:
              options.watchChanges.since === undefined
                ? undefined
                : toStoredInstant(options.watchChanges.since, 'changes since'),
          },
    jobChangeStatuses: statuses,
    onlyJobChanges: Array.isArray(options.jobChangeStatuses),
    present: options.includeEmpty === true ? undefined : template.present,
    dedupe: template.dedupe && options.all !== true,
    withKeys: keyed || compiled.fields.some(isReadByExport),
  });
  const guard = options.formulaGuard === true;
  const fill = envelopeFields(db, template, compiled.fields);
  for await (const { r } of query.stream(options.chunkSize ?? DEFAULT_CHUNK_SIZE)) {
    const values: unknown = typeof r === 'string' ? JSON.parse(r) : r;
    if (!Array.isArray(values)) throw new TypeError('the export query returned a row that is not an array');
    const jobId: unknown = keyed ? values[compiled.fields.length] : undefined;
    if (fill !== undefined) {
      const kept = fill(values);
      if (!(kept instanceof Promise ? await kept : kept)) continue;
    }
    const cells = compiled.render(values);
    if (guard) for (let i = 0; i < cells.length; i += 1) cells[i] = guardFormula(cells[i] as string);
    yield emit(cells, jobId);
  }
}

/**
 * For templates with fields read from the envelope or the person texts: a function that fills their values
 * into a row (whose job_id and position the query appended) and says whether the row passes the
 * template's `present` filters on them. Undefined when every field is a column.
 */
function envelopeFields(
  db: Kysely<Database>,
  template: ExportTemplate,
  fields: readonly SourceField[],
): ((row: unknown[]) => boolean | Promise<boolean>) | undefined {
  const source = EXPORT_SOURCES[template.source];
  const fromEnvelope = source.fromEnvelope;
  const derived = fields.flatMap((field, index) =>
    field.envelope === undefined || fromEnvelope === undefined ? [] : [{ index, key: field.envelope }],
  );
  const texts = fields.flatMap((field, index) => (field.texts === true ? [index] : []));
  if (derived.length === 0 && texts.length === 0) return undefined;
  const present = template.present
    .map((path) => fields.findIndex((field) => field.name === resolveFieldPath(source, path)?.field.name))
    .filter((index) => index >= 0 && isReadByExport(fields[index]!));
  const readEnvelope = derived.length > 0 ? createEnvelopeReader(db) : undefined;
  const readTexts = texts.length > 0 ? createPersonTextsReader(db) : undefined;
  const count = fields.length;
  const fillRow = (row: unknown[], envelope: unknown, abouts: readonly (string | null)[] | undefined) => {
    if (fromEnvelope !== undefined && derived.length > 0) {
      const record = (envelope === undefined ? undefined : fromEnvelope(envelope, Number(row[count + 1]))) as
        | Readonly<Record<string, unknown>>
        | undefined;
      for (const { index, key } of derived) row[index] = record?.[key] ?? null;
    }
    for (const index of texts) row[index] = abouts?.[Number(row[count + 1])] ?? null;
    row.length = count;
    return present.every((index) => row[index] !== null && row[index] !== '');
  };
  return (row) => {
    const jobId = row[count];
    if (typeof jobId !== 'string') return fillRow(row, undefined, undefined);
    const envelope = readEnvelope?.(jobId);
    const abouts = readTexts?.(jobId);
    // On SQLite both reads are synchronous: no promise per row.
    if (envelope instanceof Promise || abouts instanceof Promise) {
      return Promise.all([envelope, abouts]).then(([e, a]) => fillRow(row, e, a));
    }
    return fillRow(row, envelope, abouts);
  };
}

/**
 * What a template can read: three sources of rows (persons, companies, job changes), each a fixed catalog
 * of fields with the SQL that produces them (persons-source.ts, companies-source.ts, job-changes-source.ts).
 * Templates name fields; only the source files name columns.
 */
import type { JobKind } from '../contract/enums.js';
import { COMPANIES_SOURCE } from './companies-source.js';
import { JOB_CHANGES_SOURCE } from './job-changes-source.js';
import { PERSONS_SOURCE } from './persons-source.js';

/** The row sources a template can name. */
export const SOURCE_NAMES = ['persons', 'companies', 'job_changes'] as const;
/** One of {@link SOURCE_NAMES}. */
export type SourceName = (typeof SOURCE_NAMES)[number];

/**
 * How a field's value is stored: text, an integer, a time (ISO 8601 UTC text, typed in JSON lines and
 * Parquet exports), or JSON text that a path can reach into.
 */
export type FieldType = 'text' | 'integer' | 'timestamp' | 'json';

/** One field of a source: its name in templates, its SQL in each branch, and where it comes from. */
export interface SourceField {
  readonly name: string;
  readonly type: FieldType;
  /** Where the value comes from, in the interface's words (shown by `templates show`). */
  readonly from: string;
  /** SQL per branch of the source's query, in branch order; fixed fragments, never user input. */
  readonly sql: readonly string[];
  /**
   * Set when the value is not a column but read from the stored envelope: its key in the record the
   * source's `fromEnvelope` gives (nested values kept once, in the envelope; migration 008).
   */
  readonly envelope?: string;
  /** Set when the value is the person's `about`, read from the job's person_texts row (migration 008). */
  readonly texts?: true;
}

/** Whether a field's value is filled in by the export rather than selected from a column. */
export function isReadByExport(field: SourceField): boolean {
  return field.envelope !== undefined || field.texts === true;
}

/**
 * One SELECT of a source. SQL fragments name their tables through placeholders ({p} persons, {jc}
 * job_changes, {c} companies) so that the query builder can render a branch twice: for the row, and for
 * the newer rows that would make it a duplicate.
 */
export interface SourceBranch {
  readonly from: string;
  /** A condition every row of the branch meets, if any. */
  readonly where: string | undefined;
  /** The job kinds this branch yields (a --kind outside them skips the branch). */
  readonly kinds: readonly JobKind[];
  readonly kind: string;
  readonly receivedAt: string;
  readonly jobId: string;
  readonly position: string;
  /** job_change_status, and whether the row comes from a Job Change at all (else the filter lets it through). */
  readonly jobChangeStatus: string | undefined;
  readonly isJobChange: string;
  /**
   * How duplicates are found (rows about the same person or company; the newest is kept):
   * - identities: indexed columns tried in order (the first non-null one is the row's identity); a row is
   *   kept unless a newer row of this branch has the same identity (NOT EXISTS, an index probe per row).
   * - windowKey: ROW_NUMBER() over this key (a sort; for tables without an index on the identity).
   * - neither: every row is its own.
   */
  readonly identities?: readonly string[];
  readonly windowKey?: string;
}

/** A source: its branches (UNION ALL) and its field catalog. */
export interface ExportSource {
  readonly name: SourceName;
  readonly description: string;
  /** The job kinds its rows come from (what --kind accepts). */
  readonly kinds: readonly JobKind[];
  readonly branches: readonly SourceBranch[];
  readonly fields: ReadonlyMap<string, SourceField>;
  /**
   * The values of the source's envelope fields for the row at `position` of a stored envelope (parsed
   * with parseJsonText); undefined when the envelope has no such row.
   */
  readonly fromEnvelope?: (envelope: unknown, position: number) => object | undefined;
}

/** The sources by name. */
export const EXPORT_SOURCES: Readonly<Record<SourceName, ExportSource>> = Object.freeze({
  persons: PERSONS_SOURCE,
  companies: COMPANIES_SOURCE,
  job_changes: JOB_CHANGES_SOURCE,
});

/** Where a field path lands: a field of the source, and the path inside it when the field is JSON. */
export interface ResolvedPath {
  readonly field: SourceField;
  readonly jsonPath: readonly string[];
}

/**
 * Resolves "first_name", "task.custom_fields.crm_id" or "experiences.0.title": the longest field name
 * that prefixes the path wins, and what remains must walk into a JSON field. Undefined when it fits none.
 */
export function resolveFieldPath(source: ExportSource, path: string): ResolvedPath | undefined {
  const segments = path.split('.');
  for (let length = segments.length; length >= 1; length -= 1) {
    const field = source.fields.get(segments.slice(0, length).join('.'));
    if (field === undefined) continue;
    const jsonPath = segments.slice(length);
    if (jsonPath.length > 0 && (field.type !== 'json' || jsonPath.some((s) => s === ''))) return undefined;
    return { field, jsonPath };
  }
  return undefined;
}

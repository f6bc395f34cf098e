/**
 * describeTemplate: a template in words, for `hooksync templates show` — each column's header, the
 * fields it reads (with where the service puts them) and its transforms.
 */
import { EXPORT_SOURCES, resolveFieldPath } from './export-sources.js';
import { columnPaths, type ExportTemplate } from './parse-template.js';
import type { TemplateColumn, Transform } from './template-schema.js';

/** One column, described. */
export interface ColumnDescription {
  readonly header: string;
  /** The field path(s) read, e.g. "first_name" or "first of: person.title, previous_title". */
  readonly reads: string;
  /** Where the value comes from in the interface's terms. */
  readonly from: string;
  /** The transforms, in order, as short phrases ("" when none). */
  readonly transforms: string;
}

/** A template, described. */
export interface TemplateDescription {
  readonly name: string;
  readonly description: string;
  readonly source: string;
  readonly sourceDescription: string;
  readonly dialect: string;
  readonly filter: string;
  readonly dedupe: boolean;
  readonly origin: string;
  readonly notes: readonly string[];
  readonly columns: readonly ColumnDescription[];
}

/** Describes a checked template. */
export function describeTemplate(template: ExportTemplate): TemplateDescription {
  const source = EXPORT_SOURCES[template.source];
  const filters: string[] = [];
  if (template.jobChangeStatuses !== undefined) {
    filters.push(`job changes with job_change_status ${template.jobChangeStatuses.join(' or ')}`);
  }
  if (template.present.length > 0) filters.push(`rows with ${template.present.join(', ')} set`);
  return {
    name: template.name,
    description: template.description,
    source: source.name,
    sourceDescription: source.description,
    dialect: template.dialect,
    filter: filters.join('; ') || 'none',
    dedupe: template.dedupe,
    origin: template.origin,
    notes: template.notes,
    columns: template.columns.map((column) => ({
      header: column.header,
      reads: describeReads(column),
      from: columnPaths(column)
        .map((path) => resolveFieldPath(source, path)?.field.from ?? path)
        .join(' | '),
      transforms: column.transforms.map(describeTransform).join(', '),
    })),
  };
}

function describeReads(column: TemplateColumn): string {
  if (column.field !== undefined) return column.field;
  if (column.firstOf !== undefined) return `first of: ${column.firstOf.join(', ')}`;
  if (column.concat !== undefined)
    return `${column.concat.fields.join(' + ')} (joined by "${column.concat.separator}")`;
  return `constant "${column.value ?? ''}"`;
}

function describeTransform(t: Transform): string {
  switch (t.op) {
    case 'join':
      return `join("${t.separator}")`;
    case 'date':
      return `date(${t.format})`;
    case 'map': {
      const parts = [
        t.table === undefined ? undefined : `table ${t.table}`,
        t.values === undefined ? undefined : `${Object.keys(t.values).length} values`,
        t.match === 'loose' ? 'loose match' : undefined,
        t.otherwise === 'keep' ? 'else keep' : 'else blank',
      ];
      return `map(${parts.filter((p) => p !== undefined).join(', ')})`;
    }
    case 'default':
      return `default("${t.value}"${t.unless === undefined ? '' : `, unless ${t.unless} is set`})`;
    case 'split':
      return `split("${t.separator}", part ${t.index}${t.minParts > 1 ? `, if ${t.minParts}+ parts` : ''})`;
    case 'blankIf':
      return `blank if ${t.field} is ${t.in.join(' or ')}`;
    case 'truncate':
      return `truncate(${t.length})`;
    case 'case':
      return `${t.to}case`;
  }
}

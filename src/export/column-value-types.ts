/**
 * columnValueTypes(template): the type of each column's values in typed exports (JSON lines, Parquet). A
 * column's declared `type` wins; otherwise a column that is one field, untransformed, has its field's type
 * (received_at a timestamp, a count an integer); anything else is a string, as its CSV cell is.
 */
import { EXPORT_SOURCES, type FieldType, resolveFieldPath } from './export-sources.js';
import type { ExportTemplate } from './parse-template.js';
import type { TemplateColumn, ValueType } from './template-schema.js';

const FROM_FIELD: Readonly<Record<FieldType, ValueType>> = {
  text: 'string',
  integer: 'integer',
  timestamp: 'timestamp',
  json: 'string',
};

/** The value type of each column of `template`, in header order. */
export function columnValueTypes(template: ExportTemplate): ValueType[] {
  return template.columns.map((column) => columnValueType(template, column));
}

function columnValueType(template: ExportTemplate, column: TemplateColumn): ValueType {
  if (column.type !== undefined) return column.type;
  if (column.field === undefined || column.transforms.length > 0) return 'string';
  const resolved = resolveFieldPath(EXPORT_SOURCES[template.source], column.field);
  if (resolved === undefined || resolved.jsonPath.length > 0) return 'string';
  return FROM_FIELD[resolved.field.type];
}

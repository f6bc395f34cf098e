/**
 * compileTemplate: a template's columns → the fields to select and one function from a selected row to the
 * row's cells (before the formula guard). Done once per export, so that the per-row work is only reads.
 */
import { parseJsonText } from '../contract/json.js';
import { type CompiledTransform, compileTransform, toCellText } from './apply-transform.js';
import { EXPORT_SOURCES, resolveFieldPath, type SourceField } from './export-sources.js';
import type { ExportTemplate } from './parse-template.js';
import type { TemplateColumn } from './template-schema.js';

/** A row as the export query returns it: the selected fields' values, in the order of `fields`. */
export type SelectedRow = readonly unknown[];

/** A template ready to render rows. */
export interface CompiledTemplate {
  readonly header: readonly string[];
  /** The fields to select, in the order their values come in a {@link SelectedRow}. */
  readonly fields: readonly SourceField[];
  /** A row's cells, in header order, not yet formula-guarded. */
  readonly render: (row: SelectedRow) => string[];
}

type Reader = (row: SelectedRow, json: Map<number, unknown>) => unknown;

/** Compiles a checked template. Throws TypeError if a path does not resolve (parseTemplate rules that out). */
export function compileTemplate(template: ExportTemplate): CompiledTemplate {
  const source = EXPORT_SOURCES[template.source];
  const fields: SourceField[] = [];
  const positions = new Map<string, number>();
  const readers = new Map<string, Reader>();

  const readerOf = (path: string): Reader => {
    const known = readers.get(path);
    if (known !== undefined) return known;
    const resolved = resolveFieldPath(source, path);
    if (resolved === undefined) throw new TypeError(`field ${path} is not in source ${source.name}`);
    let position = positions.get(resolved.field.name);
    if (position === undefined) {
      position = fields.length;
      fields.push(resolved.field);
      positions.set(resolved.field.name, position);
    }
    const key = position;
    const reader: Reader =
      resolved.field.type === 'json'
        ? (row, json) => walk(parsedJson(row, key, json), resolved.jsonPath)
        : (row) => row[key];
    readers.set(path, reader);
    return reader;
  };

  const cells = template.columns.map((column) => compileColumn(column, template, readerOf));
  const usesJson = fields.some((f) => f.type === 'json');
  const render = (row: SelectedRow): string[] => {
    // One parse per JSON field and row, shared by the columns that read into it.
    const json = usesJson ? new Map<number, unknown>() : EMPTY;
    const out = new Array<string>(cells.length);
    for (let i = 0; i < cells.length; i += 1) out[i] = (cells[i] as ColumnCell)(row, json);
    return out;
  };
  return { header: template.columns.map((c) => c.header), fields, render };
}

const EMPTY = new Map<number, unknown>();
type ColumnCell = (row: SelectedRow, json: Map<number, unknown>) => string;

function compileColumn(
  column: TemplateColumn,
  template: ExportTemplate,
  readerOf: (path: string) => Reader,
): ColumnCell {
  let read: Reader;
  if (column.field !== undefined) {
    read = readerOf(column.field);
  } else if (column.firstOf !== undefined) {
    const candidates = column.firstOf.map(readerOf);
    read = (row, json) => {
      for (const candidate of candidates) {
        const value = candidate(row, json);
        if (toCellText(value) !== '') return value;
      }
      return undefined;
    };
  } else if (column.concat !== undefined) {
    const parts = column.concat.fields.map(readerOf);
    const { separator } = column.concat;
    read = (row, json) =>
      parts
        .map((part) => toCellText(part(row, json)))
        .filter((s) => s !== '')
        .join(separator);
  } else {
    const constant = column.value ?? '';
    read = () => constant;
  }
  const transforms: CompiledTransform[] = column.transforms.map((t) => {
    if (t.op === 'blankIf') readerOf(t.field);
    return compileTransform(t, template.valueTables);
  });
  if (transforms.length === 0) return (row, json) => toCellText(read(row, json));
  return (row, json) => {
    let value = read(row, json);
    const readField = (path: string): unknown => readerOf(path)(row, json);
    for (const transform of transforms) value = transform(value, readField);
    return toCellText(value);
  };
}

function parsedJson(row: SelectedRow, position: number, cache: Map<number, unknown>): unknown {
  if (cache.has(position)) return cache.get(position);
  const raw = row[position];
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = parseJsonText(raw);
    } catch {
      value = raw; // stored text that is not JSON is shown as it is
    }
  }
  cache.set(position, value);
  return value;
}

/** Follows object keys and array indexes; a missing step gives undefined (an empty cell). */
function walk(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const step of path) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(step)) return undefined;
      current = current[Number(step)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, step)) {
      current = (current as Record<string, unknown>)[step];
    } else {
      return undefined;
    }
  }
  return current;
}

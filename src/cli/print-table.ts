/**
 * A plain text table for a terminal: one header line, one line per row, columns padded to fit.
 */
import type { Writable } from 'node:stream';

/** Writes `rows` under `columns`; empty values print as `-`. */
export function printTable(
  out: Writable,
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
): void {
  const cells = rows.map((row) => columns.map((column) => cellText(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  out.write(`${line(columns)}\n`);
  for (const values of cells) out.write(`${line(values)}\n`);
  if (rows.length === 0) out.write('(none)\n');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  return String(value).replace(/\s+/g, ' ');
}

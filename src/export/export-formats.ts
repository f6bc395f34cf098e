/**
 * The file formats an export writes: CSV (the default, in a dialect, formula-guarded for spreadsheets),
 * JSON lines and Parquet (typed: columnValueTypes says each column's type; values exactly as stored).
 */
import type { Writable } from 'node:stream';
import { columnValueTypes } from './column-value-types.js';
import type { CsvDialectName } from './csv-dialects.js';
import { templateHeader } from './export-rows.js';
import type { ExportTemplate } from './parse-template.js';
import { writeCsv } from './write-csv.js';
import { writeJsonl } from './write-jsonl.js';

/** The formats `hooksync export --format` takes. */
export const EXPORT_FORMATS = ['csv', 'jsonl', 'parquet'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What every format's writer is given. */
export interface FormatWriteOptions {
  readonly dialect: CsvDialectName;
  readonly onProgress?: ((rows: number) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Writes a template's rows (cell text, header order) in `format`; resolves with the data rows written. */
export async function writeInFormat(
  format: ExportFormat,
  template: ExportTemplate,
  rows: AsyncIterable<readonly string[]>,
  destination: Writable,
  options: FormatWriteOptions,
): Promise<number> {
  const header = templateHeader(template);
  if (format === 'csv') {
    // The rows are guarded as they are made (exportRows' formulaGuard), so writeCsv need not copy them.
    const csv = { ...options, header, formulaGuard: false };
    return (await writeCsv(rows, destination, csv)).rows;
  }
  const typed = { header, types: columnValueTypes(template), ...options };
  if (format === 'jsonl') return (await writeJsonl(rows, destination, typed)).rows;
  // Loaded only here: hyparquet-writer stays out of every other export.
  const { writeParquet } = await import('./write-parquet.js');
  return (await writeParquet(rows, destination, typed)).rows;
}

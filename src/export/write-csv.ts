/**
 * writeCsv(rows, destination, options): rows of cell text → CSV bytes on a Writable, in a dialect, with
 * every cell formula-guarded. Quoting and escaping are csv-stringify's; this file only batches rows and
 * honours back-pressure, so memory stays flat whatever the row count.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { CSV_DIALECTS, type CsvDialect, type CsvDialectName } from './csv-dialects.js';
import { guardFormula } from './formula-guard.js';

/** Rows per csv-stringify call: large enough to amortise the call, small enough to stay flat in memory. */
export const DEFAULT_CSV_BATCH_ROWS = 64;
/** How often (in rows) onProgress is called. */
export const DEFAULT_PROGRESS_EVERY_ROWS = 10_000;
/** The UTF-8 byte order mark the excel dialect starts with. */
export const UTF8_BOM = '\uFEFF';

/** Knobs of {@link writeCsv}. */
export interface WriteCsvOptions {
  /** Written first, when given. */
  readonly header?: readonly string[] | undefined;
  /** Dialect name or definition (default crm-import). */
  readonly dialect?: CsvDialectName | CsvDialect | undefined;
  /** Neutralise formula-like cells (default true; see formula-guard.ts). */
  readonly formulaGuard?: boolean | undefined;
  /** Called with the running row count every {@link DEFAULT_PROGRESS_EVERY_ROWS} rows and at the end. */
  readonly onProgress?: ((rows: number) => void) | undefined;
  /** Stops the write (rejecting with the signal's reason) between two rows. */
  readonly signal?: AbortSignal | undefined;
}

/** What writeCsv wrote. */
export interface WriteCsvResult {
  /** Data rows written (the header not counted). */
  readonly rows: number;
}

/**
 * Writes `rows` as CSV to `destination` and resolves once every byte has been handed to it (it does not
 * end the stream: the caller owns it). Rejects on the first error of the rows or of the stream.
 */
export async function writeCsv(
  rows: AsyncIterable<readonly string[]> | Iterable<readonly string[]>,
  destination: Writable,
  options: WriteCsvOptions = {},
): Promise<WriteCsvResult> {
  const dialect =
    typeof options.dialect === 'object' ? options.dialect : CSV_DIALECTS[options.dialect ?? 'crm-import'];
  if (dialect === undefined) throw new TypeError(`unknown CSV dialect ${String(options.dialect)}`);
  const guard = options.formulaGuard !== false;
  // quote_record_delimiter: with an explicit record_delimiter csv-stringify would quote only that exact
  // sequence, leaving a lone LF or CR bare (a broken row for every reader).
  const stringifyOptions = {
    record_delimiter: dialect.recordDelimiter,
    quote_record_delimiter: true,
    eof: true,
  } as const;

  let streamError: unknown;
  const onError = (error: unknown): void => {
    streamError ??= error;
  };
  destination.on('error', onError);
  const put = async (text: string): Promise<void> => {
    if (streamError !== undefined) throw streamError;
    if (!destination.write(text)) await once(destination, 'drain');
  };

  try {
    options.signal?.throwIfAborted();
    let head = dialect.bom ? UTF8_BOM : '';
    if (options.header !== undefined) {
      head += stringify([options.header.map((h) => (guard ? guardFormula(h) : h))], stringifyOptions);
    }
    if (head !== '') await put(head);

    let count = 0;
    let nextProgress = DEFAULT_PROGRESS_EVERY_ROWS;
    let batch: (readonly string[])[] = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const text = stringify(batch, stringifyOptions);
      batch = [];
      await put(text);
    };
    for await (const row of rows) {
      options.signal?.throwIfAborted();
      if (guard) {
        // A copy: the caller's arrays are not ours to change.
        const cells = new Array<string>(row.length);
        for (let i = 0; i < row.length; i += 1) cells[i] = guardFormula(row[i] ?? '');
        batch.push(cells);
      } else {
        batch.push(row as string[]);
      }
      count += 1;
      if (batch.length >= DEFAULT_CSV_BATCH_ROWS) await flush();
      if (count >= nextProgress) {
        options.onProgress?.(count);
        nextProgress += DEFAULT_PROGRESS_EVERY_ROWS;
      }
    }
    await flush();
    if (streamError !== undefined) throw streamError;
    options.onProgress?.(count);
    return { rows: count };
  } finally {
    destination.off('error', onError);
  }
}

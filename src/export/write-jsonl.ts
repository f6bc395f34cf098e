/**
 * writeJsonl(rows, destination, options): rows of cell text → JSON lines, one object per row keyed by the
 * template's headers, each value of its column's JSON type (numbers, booleans, null for an empty cell,
 * times as ISO 8601 UTC strings). Batched, honouring back-pressure: memory stays flat.
 */
import type { Writable } from 'node:stream';
import type { ValueType } from './template-schema.js';
import { typedCell } from './typed-cell.js';
import { createBatchedPut, type TypedWriteOptions, type TypedWriteResult } from './typed-write.js';
import { DEFAULT_PROGRESS_EVERY_ROWS } from './write-csv.js';

/** Rows per write to the stream. */
export const DEFAULT_JSONL_BATCH_ROWS = 256;

/** Writes `rows` as JSON lines to `destination` (not ended: the caller owns it). */
export async function writeJsonl(
  rows: AsyncIterable<readonly string[]> | Iterable<readonly string[]>,
  destination: Writable,
  options: TypedWriteOptions,
): Promise<TypedWriteResult> {
  const { header, types } = options;
  // JSON.stringify of each key once: the per-row work is the values only.
  const keys = header.map((name) => `${JSON.stringify(name)}:`);
  const put = createBatchedPut(destination);
  try {
    let count = 0;
    let text = '';
    let batched = 0;
    for await (const row of rows) {
      options.signal?.throwIfAborted();
      let line = '{';
      for (let i = 0; i < keys.length; i += 1) {
        line += (i === 0 ? '' : ',') + keys[i] + jsonValue(row[i] ?? '', types[i] ?? 'string', header[i]!);
      }
      text += `${line}}\n`;
      count += 1;
      batched += 1;
      if (batched >= DEFAULT_JSONL_BATCH_ROWS) {
        await put.write(text);
        text = '';
        batched = 0;
      }
      if (count % DEFAULT_PROGRESS_EVERY_ROWS === 0) options.onProgress?.(count);
    }
    if (text !== '') await put.write(text);
    put.check();
    options.onProgress?.(count);
    return { rows: count };
  } finally {
    put.release();
  }
}

function jsonValue(text: string, type: ValueType, header: string): string {
  const value = typedCell(text, type, header);
  if (type === 'timestamp' && typeof value === 'number') return JSON.stringify(new Date(value).toISOString());
  return JSON.stringify(value);
}

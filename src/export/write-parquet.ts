/**
 * writeParquet(rows, destination, options): rows of cell text → a Parquet file on a Writable, each column of
 * its value type (UTF-8 strings, INT64 integers, BOOLEAN, INT64 TIMESTAMP in milliseconds, UTC), every column
 * optional (an empty cell is null). Rows are gathered into row groups of a fixed size; each group is encoded
 * and handed to the stream before the next is gathered, so memory holds one group whatever the row count.
 * The writer is hyparquet-writer (pure JavaScript, loaded only by a Parquet export).
 */
import type { Writable } from 'node:stream';
import type { ValueType } from './template-schema.js';
import { type TypedValue, typedCell } from './typed-cell.js';
import { createBatchedPut, type TypedWriteOptions, type TypedWriteResult } from './typed-write.js';
import { DEFAULT_PROGRESS_EVERY_ROWS } from './write-csv.js';

/** Rows per row group: 1,000,000 persons export under 200 MB RSS (bench/RESULTS.md). */
export const DEFAULT_PARQUET_ROW_GROUP_ROWS = 10_000;

/** Knobs of {@link writeParquet}. */
export interface WriteParquetOptions extends TypedWriteOptions {
  /** Rows per row group (default {@link DEFAULT_PARQUET_ROW_GROUP_ROWS}). */
  readonly rowGroupRows?: number | undefined;
}

/** A column of the Parquet schema (hyparquet's SchemaElement). */
interface ParquetColumn {
  readonly name: string;
  readonly type: 'BYTE_ARRAY' | 'INT64' | 'BOOLEAN';
  readonly repetition_type: 'OPTIONAL';
  readonly converted_type?: 'UTF8' | 'TIMESTAMP_MILLIS';
  readonly logical_type?:
    | { readonly type: 'STRING' }
    | { readonly type: 'TIMESTAMP'; readonly isAdjustedToUTC: true; readonly unit: 'MILLIS' };
}

function schemaElement(name: string, type: ValueType): ParquetColumn {
  const repetition_type = 'OPTIONAL';
  switch (type) {
    case 'string':
      return {
        name,
        type: 'BYTE_ARRAY',
        converted_type: 'UTF8',
        logical_type: { type: 'STRING' },
        repetition_type,
      };
    case 'integer':
      return { name, type: 'INT64', repetition_type };
    case 'boolean':
      return { name, type: 'BOOLEAN', repetition_type };
    case 'timestamp':
      return {
        name,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        repetition_type,
      };
  }
}

/** Writes `rows` as one Parquet file to `destination` (not ended: the caller owns it). */
export async function writeParquet(
  rows: AsyncIterable<readonly string[]> | Iterable<readonly string[]>,
  destination: Writable,
  options: WriteParquetOptions,
): Promise<TypedWriteResult> {
  const { header, types } = options;
  const groupRows = options.rowGroupRows ?? DEFAULT_PARQUET_ROW_GROUP_ROWS;
  if (!Number.isInteger(groupRows) || groupRows < 1)
    throw new TypeError('rowGroupRows must be a positive integer');
  const { ByteWriter, ParquetWriter } = await import('hyparquet-writer');
  type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];
  const put = createBatchedPut(destination);
  // The encoded bytes of one group wait in the ByteWriter until the group is done; then they go to the
  // stream (ParquetWriter awaits flush before it encodes the next group).
  const bytes: InstanceType<typeof ByteWriter> & { flush?: () => Promise<void> } = new ByteWriter();
  const flush = async (): Promise<void> => {
    if (bytes.index === 0) return;
    const chunk = Buffer.from(bytes.buffer.slice(0, bytes.index));
    bytes.index = 0;
    await put.write(chunk);
  };
  bytes.flush = flush;
  bytes.finish = () => undefined;
  const schema = [
    { name: 'root', num_children: header.length },
    ...header.map((name, i) => schemaElement(name, types[i] ?? 'string')),
  ] as SchemaElement[];
  try {
    const writer = new ParquetWriter({ writer: bytes, schema, createdBy: 'hooksync' });
    let columns: TypedValue[][] = header.map(() => []);
    let count = 0;
    const writeGroup = async (): Promise<void> => {
      if ((columns[0]?.length ?? 0) === 0) return;
      const columnData = header.map((name, i) => ({ name, data: columns[i] as TypedValue[] }));
      columns = header.map(() => []);
      await writer.write({ columnData, rowGroupSize: groupRows });
    };
    for await (const row of rows) {
      options.signal?.throwIfAborted();
      for (let i = 0; i < header.length; i += 1) {
        (columns[i] as TypedValue[]).push(typedCell(row[i] ?? '', types[i] ?? 'string', header[i]!, true));
      }
      count += 1;
      if (count % groupRows === 0) await writeGroup();
      if (count % DEFAULT_PROGRESS_EVERY_ROWS === 0) options.onProgress?.(count);
    }
    await writeGroup();
    await writer.finish();
    await flush();
    put.check();
    options.onProgress?.(count);
    return { rows: count };
  } finally {
    put.release();
  }
}

/**
 * What the typed writers (JSON lines, Parquet) share: their options and result, and a write to a stream that
 * waits for 'drain' and remembers the stream's first error.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { ValueType } from './template-schema.js';

/** Knobs of a typed writer. */
export interface TypedWriteOptions {
  /** The column names, in order. */
  readonly header: readonly string[];
  /** Each column's value type (columnValueTypes). */
  readonly types: readonly ValueType[];
  /** Called with the running row count every DEFAULT_PROGRESS_EVERY_ROWS rows and at the end. */
  readonly onProgress?: ((rows: number) => void) | undefined;
  /** Stops the write (rejecting with the signal's reason) between two rows. */
  readonly signal?: AbortSignal | undefined;
}

/** What a typed writer wrote. */
export interface TypedWriteResult {
  /** Data rows written. */
  readonly rows: number;
}

/** Writes to a stream with back-pressure; `check` throws the stream's first error, `release` stops listening. */
export interface BatchedPut {
  write(chunk: string | Uint8Array): Promise<void>;
  check(): void;
  release(): void;
}

/** A {@link BatchedPut} on `destination`. */
export function createBatchedPut(destination: Writable): BatchedPut {
  let streamError: unknown;
  const onError = (error: unknown): void => {
    streamError ??= error;
  };
  destination.on('error', onError);
  const check = (): void => {
    if (streamError !== undefined) throw streamError;
  };
  return {
    async write(chunk) {
      check();
      if (!destination.write(chunk)) await once(destination, 'drain');
    },
    check,
    release: () => destination.off('error', onError),
  };
}

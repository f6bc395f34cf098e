/**
 * The messages between `hooksync serve`'s main thread and its store worker (worker-job-store.ts and
 * store-worker.ts). Everything that crosses is plain data (structured clone): prepared jobs (the envelope's
 * bytes for the worker to compress: a page's transferred, and given back on a replay; a small one's copied
 * with the message; its rows; neither its text nor its parsed form), quarantined bodies as bytes, errors as
 * their fields.
 */

import type { JobStoreStats, StoreOperation, StoreResult } from './job-store.js';
import type { JobToEncode } from './prepare-job.js';

/** An operation as it crosses: a job's envelope is still its bytes (the worker compresses it). */
export type WireOperation =
  | Exclude<StoreOperation, { readonly type: 'job' }>
  | { readonly type: 'job'; readonly job: JobToEncode; readonly atMs: number };

/** What the worker is started with (workerData). */
export interface StoreWorkerInit {
  readonly databaseUrl: string;
  /** The main logger's level: the worker only sends lines that would be written. */
  readonly logLevel: string;
  /** What the normalizer may hold in memory, in envelope characters (default: the job store's). */
  readonly heldChars?: number;
}

/** An error as it crosses: enough to rebuild a StorageError. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly transient: boolean;
}

/** Main thread → worker. */
export type ToStoreWorker =
  | { readonly t: 'ops'; readonly ops: ReadonlyArray<{ readonly id: number; readonly op: WireOperation }> }
  | { readonly t: 'settle'; readonly id: number }
  | { readonly t: 'close' };

/** One operation's outcome. */
export type WireResult =
  | { readonly id: number; readonly ok: true; readonly value: StoreResult | undefined }
  | { readonly id: number; readonly ok: false; readonly error: WireError };

/** Worker → main thread. */
export type FromStoreWorker =
  | { readonly t: 'ready' }
  | { readonly t: 'failed'; readonly error: WireError }
  | { readonly t: 'done'; readonly results: readonly WireResult[]; readonly stats: JobStoreStats }
  | { readonly t: 'settled'; readonly id: number }
  | { readonly t: 'normalized'; readonly normalized: number }
  | { readonly t: 'log'; readonly line: string }
  | { readonly t: 'closed' };

/** `error` as it crosses the thread boundary. */
export function toWireError(error: unknown): WireError {
  if (error instanceof Error) {
    const transient = (error as { transient?: unknown }).transient;
    return { name: error.name, message: error.message, transient: transient === true };
  }
  return { name: 'Error', message: String(error), transient: false };
}

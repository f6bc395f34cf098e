/**
 * What every read of the CLI and admin API shares: failures as StorageError, and the check of a row limit.
 */
import { classifyStorageError } from './classify-storage-error.js';

/** Runs a query; a failure surfaces as StorageError, transient or not (`classifyStorageError`). */
export async function guarded<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    throw classifyStorageError(error);
  }
}

/** Throws TypeError unless `limit` is undefined or a non-negative integer. */
export function assertLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
    throw new TypeError('limit must be a non-negative integer');
  }
}

/**
 * The dispatcher's SQLite connection waits for no lock (busy_timeout 0): better-sqlite3 would wait by
 * sleeping the thread, and that thread is the one that reads callbacks. A write that finds the database
 * locked (the store committing) fails at once and is tried again here a moment later, on a timer.
 */
import { isTransientStorageFailure } from '../storage/classify-storage-error.js';

/** How long the retries of one write may take in all before its error is given back. */
export const UNLOCK_PATIENCE_MS = 10_000;

/** Runs `write`, again after a short wait while it fails for a transient reason (locked, busy). */
export async function whenUnlocked<T>(write: () => Promise<T>, patienceMs = UNLOCK_PATIENCE_MS): Promise<T> {
  const deadline = performance.now() + patienceMs;
  for (let waitMs = 2; ; waitMs = Math.min(waitMs * 2, 100)) {
    try {
      return await write();
    } catch (error) {
      if (!isTransientStorageFailure(error) || performance.now() + waitMs > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs + Math.random() * waitMs));
    }
  }
}

/**
 * The store tells serve's other parts that a commit wrote jobs: the dispatcher then claims their outbox
 * events at once instead of at its next poll (issue 44: a stored job waited ~350 ms at the median).
 */

/** Told by the store, heard by whoever listens; listeners are called in order, synchronously. */
export interface JobsStoredSignal {
  /** A commit wrote jobs (or the normalizer gave them their rows). */
  notify(): void;
  /** Calls `listener` on every notify from now on; returns what stops it. */
  listen(listener: () => void): () => void;
}

/** A signal with no listener yet. */
export function createJobsStoredSignal(): JobsStoredSignal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    listen(listener) {
      const own = () => listener();
      listeners.add(own);
      return () => listeners.delete(own);
    },
  };
}

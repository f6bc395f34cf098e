/**
 * Group commit: work submitted while a transaction runs waits, then goes into the next transaction
 * together (up to maxBatch), and every submitter's promise settles only after its transaction commits.
 * One fsync (or one Postgres round of commit) then acknowledges many callbacks.
 */
import type { StorageError } from '../errors.js';
import { classifyStorageError } from './classify-storage-error.js';

/** Runs items in ONE transaction and returns one result per item, in order; throws to roll back. */
export type BatchRunner<I, R> = (items: readonly I[]) => Promise<R[]>;

/** Counters of a {@link GroupCommitter}. */
export interface GroupCommitStats {
  /** Transactions committed (batches, and single-item retries after a failed batch). */
  readonly transactions: number;
  /** Items whose transaction committed. */
  readonly committedItems: number;
  /** Batches that failed and were retried item by item. */
  readonly failedBatches: number;
  /** Items rejected with an error. */
  readonly failedItems: number;
  /** The most items one transaction held. */
  readonly largestBatch: number;
}

interface Pending<I, R> {
  readonly item: I;
  readonly resolve: (result: R) => void;
  readonly reject: (error: StorageError) => void;
}

/** Batches submitted items into shared transactions; at most one transaction in flight. */
export class GroupCommitter<I, R> {
  readonly #runBatch: BatchRunner<I, R>;
  readonly #maxBatch: number;
  readonly #onBatch: ((size: number, elapsedMs: number) => void) | undefined;
  #queue: Pending<I, R>[] = [];
  #active: Promise<void> | undefined;
  #stats = { transactions: 0, committedItems: 0, failedBatches: 0, failedItems: 0, largestBatch: 0 };

  constructor(
    runBatch: BatchRunner<I, R>,
    maxBatch: number,
    onBatch?: (size: number, elapsedMs: number) => void,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new TypeError('maxBatch must be a positive integer');
    this.#runBatch = runBatch;
    this.#maxBatch = maxBatch;
    this.#onBatch = onBatch;
  }

  /** Queues `item`; resolves with its result once its transaction has committed. */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#active ??= this.#drain();
    });
  }

  /** Resolves when every submitted item has settled. */
  async idle(): Promise<void> {
    while (this.#active !== undefined) await this.#active;
  }

  /** A snapshot of the counters. */
  stats(): GroupCommitStats {
    return { ...this.#stats };
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        // Yield to the event loop first: with a synchronous driver (better-sqlite3) a batch never does,
        // so requests that arrived meanwhile are read now and join this batch instead of the next one.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const batch = this.#queue.splice(0, this.#maxBatch);
        await this.#commit(batch);
      }
    } finally {
      this.#active = undefined;
    }
  }

  async #commit(batch: Pending<I, R>[]): Promise<void> {
    const startedAt = performance.now();
    try {
      const results = await this.#runBatch(batch.map((p) => p.item));
      this.#committed(batch.length);
      for (const [index, pending] of batch.entries()) pending.resolve(results[index] as R);
    } catch (error) {
      if (batch.length === 1) {
        this.#fail(batch[0]!, error);
        return;
      }
      this.#stats.failedBatches += 1;
      await this.#retryOneByOne(batch);
    } finally {
      this.#onBatch?.(batch.length, performance.now() - startedAt);
    }
  }

  /** After a failed batch: each item alone, so that one bad item cannot fail the others. */
  async #retryOneByOne(batch: Pending<I, R>[]): Promise<void> {
    let unavailable: StorageError | undefined;
    for (const pending of batch) {
      if (unavailable !== undefined) {
        // The database itself is failing: answer at once (the sender retries) rather than wait per item.
        this.#fail(pending, unavailable);
        continue;
      }
      try {
        const [result] = await this.#runBatch([pending.item]);
        this.#committed(1);
        pending.resolve(result as R);
      } catch (error) {
        const storageError = this.#fail(pending, error);
        if (storageError.transient) unavailable = storageError;
      }
    }
  }

  #committed(items: number): void {
    this.#stats.transactions += 1;
    this.#stats.committedItems += items;
    this.#stats.largestBatch = Math.max(this.#stats.largestBatch, items);
  }

  #fail(pending: Pending<I, R>, error: unknown): StorageError {
    const storageError = classifyStorageError(error);
    this.#stats.failedItems += 1;
    pending.reject(storageError);
    return storageError;
  }
}

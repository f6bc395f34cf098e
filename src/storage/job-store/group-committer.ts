/**
 * Group commit: work submitted while a transaction runs waits, then goes into the next transaction
 * together (up to maxBatch), and every submitter's promise settles only after its transaction commits.
 * One fsync (or one Postgres round of commit) then acknowledges many callbacks. Optional background work
 * (the normalizer) runs in the same loop, one transaction at a time: when no batch waits, and at least
 * once per `maxDelayMs` while batches keep coming, so that a sustained burst cannot starve it.
 */
import type { StorageError } from '../../errors.js';
import { classifyStorageError } from '../classify-storage-error.js';

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

/** Work done between batches, each call in a transaction of its own. */
export interface BackgroundWork {
  /** Does one unit of work; resolves true when more is waiting. */
  run(): Promise<boolean>;
  /** Longest a waiting unit is put off while batches keep coming, ms. */
  readonly maxDelayMs: number;
  /** Called when a unit fails; the work is tried again after `retryMs`. */
  onError?(error: unknown): void;
  /** Wait before trying again after a failure, ms. */
  readonly retryMs: number;
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
  #background: BackgroundWork | undefined;
  /** performance.now() since background work has been waiting; undefined when none waits. */
  #backgroundWaitingSince: number | undefined;
  #backgroundStopped = false;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
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

  /** Installs the background work (once). */
  setBackgroundWork(work: BackgroundWork): void {
    if (this.#background !== undefined) throw new TypeError('background work is already set');
    this.#background = work;
  }

  /** Says that background work may be waiting: it runs at its next turn. */
  wakeBackground(): void {
    if (this.#background === undefined || this.#backgroundStopped) return;
    this.#backgroundWaitingSince ??= performance.now();
    this.#active ??= this.#drain();
  }

  /** No more background work from now on (what runs finishes); batches go on. */
  stopBackground(): void {
    this.#backgroundStopped = true;
    this.#backgroundWaitingSince = undefined;
    clearTimeout(this.#retryTimer);
  }

  /** Resolves when every submitted item has settled (and the background work with it, unless stopped). */
  async idle(): Promise<void> {
    while (this.#active !== undefined) await this.#active;
  }

  /** A snapshot of the counters. */
  stats(): GroupCommitStats {
    return { ...this.#stats };
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0 || this.#backgroundWaitingSince !== undefined) {
        // Yield to the event loop first: with a synchronous driver (better-sqlite3) a batch never does,
        // so requests that arrived meanwhile are read now and join this batch instead of the next one.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.#queue.length > 0 && !this.#backgroundOverdue()) {
          await this.#commit(this.#queue.splice(0, this.#maxBatch));
        } else if (this.#backgroundWaitingSince !== undefined) {
          await this.#runBackground();
        }
      }
    } finally {
      this.#active = undefined;
    }
  }

  #backgroundOverdue(): boolean {
    const since = this.#backgroundWaitingSince;
    return since !== undefined && performance.now() - since >= this.#background!.maxDelayMs;
  }

  async #runBackground(): Promise<void> {
    const work = this.#background!;
    this.#backgroundWaitingSince = undefined;
    let more: boolean;
    try {
      more = await work.run();
    } catch (error) {
      work.onError?.(error);
      if (!this.#backgroundStopped) {
        clearTimeout(this.#retryTimer);
        this.#retryTimer = setTimeout(() => this.wakeBackground(), work.retryMs);
        this.#retryTimer.unref?.();
      }
      return;
    }
    if (more && !this.#backgroundStopped) this.#backgroundWaitingSince = performance.now();
  }

  async #commit(batch: Pending<I, R>[]): Promise<void> {
    const startedAt = performance.now();
    try {
      const results = await this.#runBatch(batch.map((p) => p.item));
      this.#committed(batch.length);
      this.#settle(batch, results);
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
        const results = await this.#runBatch([pending.item]);
        this.#committed(1);
        this.#settle([pending], results);
      } catch (error) {
        const storageError = this.#fail(pending, error);
        if (storageError.transient) unavailable = storageError;
      }
    }
  }

  /** Resolves a committed batch's submitters with their results. */
  #settle(batch: readonly Pending<I, R>[], results: readonly R[]): void {
    for (const [index, pending] of batch.entries()) pending.resolve(results[index] as R);
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

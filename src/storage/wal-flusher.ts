/**
 * Durability for a SQLite connection in WAL mode with synchronous=NORMAL: its commits write the WAL
 * without syncing it, and `flush()` resolves once an fdatasync of the WAL file that began after the call
 * has completed, i.e. once every transaction committed before the call is on disk (what synchronous=FULL
 * gives each commit). The fdatasync runs on libuv's thread pool, so the connection's thread keeps
 * committing meanwhile, and one fdatasync covers every commit made while the previous one ran.
 * On Linux fdatasync flushes the file's data whichever descriptor wrote it; SQLite keeps the WAL file
 * (same inode) for as long as a connection is open, resetting it in place after checkpoints.
 */
import { type FileHandle, open } from 'node:fs/promises';

interface Waiter {
  readonly generation: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** Coalesced fdatasync of one file. */
export class WalFlusher {
  readonly #handle: FileHandle;
  /** Generations handed out by flush(); a flush covers those handed out before it began. */
  #requested = 0;
  #flushed = 0;
  #running = false;
  #failure: unknown;
  #waiters: Waiter[] = [];
  /** fdatasync calls made (each covers every flush() requested before it began). */
  syncs = 0;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  /** Opens the WAL file of the database at `databasePath` (it must exist: the database is in WAL mode). */
  static async open(databasePath: string): Promise<WalFlusher> {
    return new WalFlusher(await open(`${databasePath}-wal`, 'r'));
  }

  /** Resolves when everything written to the file before this call is on disk; rejects if a sync failed. */
  flush(): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const generation = ++this.#requested;
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ generation, resolve, reject }));
    void this.#run();
    return done;
  }

  async #run(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#flushed < this.#requested) {
        const target = this.#requested;
        try {
          await this.#handle.datasync();
        } catch (error) {
          // What the kernel failed to write may be lost for good: no later sync can vouch for it.
          this.#failure = error;
          for (const waiter of this.#waiters) waiter.reject(error);
          this.#waiters = [];
          return;
        }
        this.syncs += 1;
        this.#flushed = target;
        const waiting = this.#waiters;
        this.#waiters = [];
        for (const waiter of waiting) {
          if (waiter.generation <= target) waiter.resolve();
          else this.#waiters.push(waiter);
        }
      }
    } finally {
      this.#running = false;
    }
  }

  /** Waits for the sync in progress, then closes the file. */
  async close(): Promise<void> {
    while (this.#running || this.#flushed < this.#requested) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#failure !== undefined) break;
    }
    await this.#handle.close();
  }
}

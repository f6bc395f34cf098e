/**
 * Writes to `launch_rows` in shared transactions: the claims and outcomes that workers submit while a
 * transaction is being committed go together in the next one (group commit). Each submitter's promise
 * settles only after its own transaction has committed, so a row is recorded before its request is sent
 * and after its answer exactly as with one statement each, for a fraction of the commits.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../storage/database.js';

type Work<T> = (trx: Transaction<Database>) => Promise<T>;

interface Pending {
  readonly work: Work<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

/** Statements per shared transaction, at most. */
const MAX_BATCH = 64;

/** Runs submitted statements in shared transactions. */
export class LaunchRowWriter {
  readonly #db: Kysely<Database>;
  #queue: Pending[] = [];
  #running = false;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Runs `work` in the next shared transaction; resolves once that transaction has committed. */
  submit<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        try {
          const results = await this.#db.transaction().execute(async (trx) => {
            const out: unknown[] = [];
            for (const item of batch) out.push(await item.work(trx));
            return out;
          });
          for (const [i, item] of batch.entries()) item.resolve(results[i]);
        } catch (error) {
          if (batch.length === 1) {
            batch[0]!.reject(error);
            continue;
          }
          // One bad statement must not fail the others: run them again one by one.
          for (const item of batch) {
            try {
              item.resolve(await this.#db.transaction().execute(item.work));
            } catch (own) {
              item.reject(own);
            }
          }
        }
      }
    } finally {
      this.#running = false;
    }
  }
}

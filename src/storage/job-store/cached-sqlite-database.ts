/**
 * better-sqlite3 behind Kysely's SqliteDialect, with prepared statements reused by SQL text: Kysely's
 * driver prepares every query anew, and the job store runs the same few statements thousands of times.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct SQL texts kept prepared, least recently used evicted (multi-row inserts vary by row count). */
export const DEFAULT_STATEMENT_CACHE_SIZE = 512;

/** A SqliteDatabase whose `all`/`run` reuse prepared statements; `iterate` always prepares its own. */
export class CachedSqliteDatabase implements SqliteDatabase {
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  readonly #maxSize: number;

  constructor(db: BetterSqlite3.Database, maxSize: number = DEFAULT_STATEMENT_CACHE_SIZE) {
    this.#db = db;
    this.#maxSize = maxSize;
  }

  close(): void {
    this.#statements.clear();
    this.#db.close();
  }

  prepare(sql: string): SqliteStatement {
    const statement = this.#cached(sql);
    const db = this.#db;
    return {
      reader: statement.reader,
      all: (parameters) => statement.all(...parameters),
      run: (parameters) => statement.run(...parameters),
      // A streaming cursor keeps its statement busy until it is closed: never share it.
      iterate: (parameters) => db.prepare(sql).iterate(...parameters),
    };
  }

  #cached(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (statement !== undefined) {
      // Re-inserting moves the entry to the end of the Map's order: the first key is the least recent.
      this.#statements.delete(sql);
    } else {
      statement = this.#db.prepare(sql);
      if (this.#statements.size >= this.#maxSize) {
        const oldest = this.#statements.keys().next();
        if (oldest.done !== true) this.#statements.delete(oldest.value);
      }
    }
    this.#statements.set(sql, statement);
    return statement;
  }
}

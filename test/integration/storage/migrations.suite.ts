/** Storage suite: migrations from scratch, idempotent, and concurrent. */

import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../../src/storage/migrate-to-latest.js';
import { MIGRATIONS } from '../../../src/storage/migrations/migration-provider.js';
import { openDatabase } from '../../../src/storage/open-database.js';
import { type SuiteContext, TABLES } from './suite-context.js';

/** Registers these tests in the current describe block. */
export function defineMigrationTests(ctx: SuiteContext): void {
  describe('migrations', () => {
    it('apply from scratch, then find nothing to do', async () => {
      const fresh = await ctx.setup.provision();
      const db = await openDatabase(fresh.url);
      try {
        const first = await migrateToLatest(db);
        expect(first).toEqual({ applied: Object.keys(MIGRATIONS), failed: undefined, error: undefined });
        const second = await migrateToLatest(db);
        expect(second).toEqual({ applied: [], failed: undefined, error: undefined });
        for (const table of TABLES) {
          await expect(db.db.selectFrom(table).selectAll().execute()).resolves.toEqual([]);
        }
      } finally {
        await db.close();
        await fresh.drop();
      }
    });

    // On SQLite two connections of ONE process cannot overlap (better-sqlite3 waits for a lock synchronously,
    // blocking the holder too), so there the second migrator runs after the first; two processes queue on
    // the BEGIN IMMEDIATE lock instead (see immediate-sqlite-dialect.ts).
    it('apply exactly once when two pools migrate the same database', async () => {
      const fresh = await ctx.setup.provision();
      const a = await openDatabase(fresh.url);
      const b = await openDatabase(fresh.url);
      try {
        const reports =
          ctx.setup.dialect === 'postgres'
            ? await Promise.all([migrateToLatest(a), migrateToLatest(b)])
            : [await migrateToLatest(a), await migrateToLatest(b)];
        for (const report of reports) expect(report.error).toBeUndefined();
        expect(reports.flatMap((r) => r.applied)).toEqual(Object.keys(MIGRATIONS));
      } finally {
        await a.close();
        await b.close();
        await fresh.drop();
      }
    });
  });
}

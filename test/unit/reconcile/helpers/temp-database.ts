/**
 * A migrated database for a test: a SQLite file in a fresh temp directory, or (when asked and
 * TEST_DATABASE_URL is set) a fresh Postgres database. `cleanup()` closes and removes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HooksyncDatabase } from '../../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../../src/storage/open-migrated-database.js';
import { createTestDatabase } from '../../../helpers/postgres.js';

/** An open, migrated database and where it lives. */
export interface TempDatabase {
  readonly database: HooksyncDatabase;
  /** The URL or file path, to open it again (a second connection, the CLI). */
  readonly url: string;
  cleanup(): Promise<void>;
}

/** A SQLite file in its own temp directory. */
export async function createTempSqlite(): Promise<TempDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-reconcile-'));
  const url = join(dir, 'hooksync.db');
  const database = await openMigratedDatabase(url);
  return {
    database,
    url,
    async cleanup() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh Postgres database (needs TEST_DATABASE_URL). */
export async function createTempPostgres(): Promise<TempDatabase> {
  const created = await createTestDatabase();
  const database = await openMigratedDatabase(created.url);
  return {
    database,
    url: created.url,
    async cleanup() {
      await database.close();
      await created.drop();
    },
  };
}

/** Empties every table a reconcile test writes, so that one database can serve a whole suite. */
export async function clearTables(database: HooksyncDatabase): Promise<void> {
  for (const table of [
    'expected_jobs',
    'persons',
    'companies',
    'job_changes',
    'deliveries',
    'jobs',
    'leases',
    'reconcile_runs',
  ] as const) {
    await database.db.deleteFrom(table).execute();
  }
}

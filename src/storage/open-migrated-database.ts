/**
 * Opens the database and brings its schema up to date first (idempotent), so that every command works on
 * a fresh database as well as on an old one. The one place that pairs openDatabase with migrateToLatest.
 */
import type { Logger } from 'pino';
import { migrateToLatest } from './migrate-to-latest.js';
import { type HooksyncDatabase, type OpenDatabaseOptions, openDatabase } from './open-database.js';

/** Opens `url` and migrates it; closes it again and rethrows (StorageError) when migrating fails. */
export async function openMigratedDatabase(
  url: string,
  options: OpenDatabaseOptions & { logger?: Logger } = {},
): Promise<HooksyncDatabase> {
  const database = await openDatabase(url, options);
  try {
    const migration = await migrateToLatest(database);
    if (migration.error !== undefined) throw migration.error;
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** Runs `work` with a migrated database and closes it afterwards, whatever happens. */
export async function withMigratedDatabase<T>(
  url: string,
  work: (database: HooksyncDatabase) => Promise<T>,
  options: OpenDatabaseOptions & { logger?: Logger } = {},
): Promise<T> {
  const database = await openMigratedDatabase(url, options);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

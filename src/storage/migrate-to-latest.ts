/**
 * Brings the schema up to date with Kysely's Migrator. On Postgres, Kysely holds an advisory lock while it
 * migrates, so replicas starting together apply each migration once.
 */
import { Migrator } from 'kysely';
import type { StorageError } from '../errors.js';
import { classifyStorageError } from './classify-storage-error.js';
import { createMigrationProvider } from './migrations/migration-provider.js';
import type { HooksyncDatabase } from './open-database.js';

/** What a migration run did. */
export interface MigrationReport {
  /** Migrations applied by this run, in order (empty when the schema was already current). */
  readonly applied: readonly string[];
  /** The migration that failed, if one did (it and the ones after it are not applied). */
  readonly failed: string | undefined;
  /** Why the run failed; undefined on success. */
  readonly error: StorageError | undefined;
}

/** Applies every pending migration. Never throws for a database failure: the report carries it. */
export async function migrateToLatest(database: HooksyncDatabase): Promise<MigrationReport> {
  const migrator = new Migrator({
    db: database.db,
    provider: createMigrationProvider(database.dialect),
    // In a named schema the bookkeeping lives there too, never found in (or written to) public.
    ...(database.schema === undefined ? {} : { migrationTableSchema: database.schema }),
  });
  let resultSet: Awaited<ReturnType<Migrator['migrateToLatest']>>;
  try {
    resultSet = await migrator.migrateToLatest();
  } catch (error) {
    return { applied: [], failed: undefined, error: classifyStorageError(error) };
  }
  const results = resultSet.results ?? [];
  const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
  const failed = results.find((r) => r.status === 'Error')?.migrationName;
  const error = resultSet.error === undefined ? undefined : classifyStorageError(resultSet.error);
  return { applied, failed, error };
}

/**
 * Inserts rows into one of the bulk tables (persons, companies, job_changes, quarantine) through a
 * RowRunner: multi-row statements on Postgres, one prepared statement row by row on SQLite.
 */
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../database.js';
import { CHUNKED_ROW_RUNNER, type RowRunner } from './row-runner.js';

/** Tables whose rows are written in bulk. */
export type BulkTable = 'persons' | 'companies' | 'job_changes' | 'quarantine';

/** Inserts `rows` (all with the same columns) into `table` in the open transaction `db`. */
export async function insertRows<T extends BulkTable>(
  db: Kysely<Database>,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  runner: RowRunner = CHUNKED_ROW_RUNNER,
): Promise<void> {
  // Kysely's insert typing is per table; the union T is only resolved at run time here.
  await runner.run(db, rows as readonly Insertable<Database[BulkTable]>[], INSERTS[table]);
}

type BulkRows = readonly Insertable<Database[BulkTable]>[];

function insertInto(table: BulkTable) {
  return (trx: Kysely<Database>, chunk: BulkRows) =>
    trx.insertInto(table).values(chunk as Insertable<Database[BulkTable]>[]);
}

/** One statement builder per table, the same function on every call: the row runner compiles each once. */
const INSERTS = {
  persons: insertInto('persons'),
  companies: insertInto('companies'),
  job_changes: insertInto('job_changes'),
  quarantine: insertInto('quarantine'),
} satisfies Record<BulkTable, unknown>;

/**
 * Multi-row statements in chunks that stay under both dialects' bound-parameter limits (SQLite 32766,
 * Postgres 65535): a Search Contact page of 250 persons is one statement, not 250.
 */
import type { Insertable, Kysely } from 'kysely';
import type { Database } from './database.js';

/** Bound parameters per statement, below SQLite's 32766 and Postgres's 65535. */
export const MAX_PARAMETERS_PER_STATEMENT = 30_000;

/** Tables whose rows are written in bulk. */
export type BulkTable = 'persons' | 'companies' | 'job_changes' | 'quarantine';

/** `items` cut into runs of at most `parametersPerItem`-sized items per statement. */
export function chunkForParameters<T>(
  items: readonly T[],
  parametersPerItem: number,
  maxParameters: number = MAX_PARAMETERS_PER_STATEMENT,
): T[][] {
  const size = Math.max(1, Math.floor(maxParameters / Math.max(1, parametersPerItem)));
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/** Inserts `rows` (all with the same columns) into `table`, as few statements as the limits allow. */
export async function insertRows<T extends BulkTable>(
  db: Kysely<Database>,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  maxParameters: number = MAX_PARAMETERS_PER_STATEMENT,
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  for (const chunk of chunkForParameters(rows, Object.keys(first).length, maxParameters)) {
    // Kysely's insert typing is per table; the union T is only resolved at run time here.
    await db
      .insertInto(table as BulkTable)
      .values(chunk as Insertable<Database[BulkTable]>[])
      .execute();
  }
}

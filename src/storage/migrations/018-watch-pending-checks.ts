/**
 * Migration 018: `watch_rows.pending_job_id`, the job of a row's latest check while its answer was RUNNING.
 * The row counts as checked when that answer is recorded; what the job found (and cost) is observed once,
 * when its finished copy is stored (by the receiver from its callback, or by reconcile), and the column is
 * cleared in the same transaction (src/watches/record-check.ts).
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('watch_rows').addColumn('pending_job_id', t.text).execute();
  await db.schema
    .createIndex('watch_rows_pending')
    .ifNotExists()
    .on('watch_rows')
    .columns(['watch', 'pending_job_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('watch_rows_pending').ifExists().execute();
  await db.schema.alterTable('watch_rows').dropColumn('pending_job_id').execute();
}

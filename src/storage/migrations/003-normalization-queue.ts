/**
 * Migration 003: the normalization queue. `hooksync serve` acknowledges a callback once its envelope is
 * committed and derives the normalized rows (persons, companies, job changes) and the schema check just
 * after, in batches; a job waits here, in the same transaction as its envelope, until that is done. A
 * crash in between leaves the row, so the next start finishes the work.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('normalization_queue')
    .ifNotExists()
    // Appended at one end, taken from the other: no index on job_id, whose random values would cost a
    // page write per job. The queue is short; the few lookups by job_id scan it.
    .addColumn('id', t.serial, (c) => c.primaryKey())
    .addColumn('job_id', t.text, (c) => c.notNull())
    // The jobs.revision whose envelope is to be normalized (an upgrade queues the job again).
    .addColumn('revision', t.integer, (c) => c.notNull())
    // jobs.updated_at of that revision: the received_at of the rows derived from it.
    .addColumn('stored_at', t.text, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('normalization_queue').ifExists().execute();
}

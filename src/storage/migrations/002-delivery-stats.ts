/**
 * Migration 002: delivery counts per hour and outcome, for the status page's 24-hour chart. Counts, not
 * events: one row per hour and outcome however many deliveries arrive.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('delivery_stats')
    .ifNotExists()
    .addColumn('hour', t.text, (c) => c.notNull())
    .addColumn('outcome', t.text, (c) => c.notNull())
    .addColumn('count', t.integer, (c) => c.notNull())
    .addPrimaryKeyConstraint('delivery_stats_pkey', ['hour', 'outcome'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('delivery_stats').ifExists().execute();
}

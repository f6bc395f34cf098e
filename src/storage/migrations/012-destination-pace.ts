/**
 * Migration 012: destination_pace, the next free call slot of a paced destination (a HubSpot destination's
 * rate), one row per destination. Every process that works for the destination (serve's replicas, a
 * `destinations replay` beside them) reserves its calls here, so the rate holds across all of them.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('destination_pace')
    .ifNotExists()
    .addColumn('destination', t.text, (c) => c.primaryKey())
    // ISO 8601 UTC, millisecond precision: the earliest time the next call may go.
    .addColumn('next_at', t.text, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('destination_pace').ifExists().execute();
}

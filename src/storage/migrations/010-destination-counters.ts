/**
 * Migration 010: destination_counters, what a destination's work came to, by name: for a HubSpot
 * destination the records created / updated / skipped / failed per object, the API calls, the 429s per
 * policy (added to by every replica), and the daily allowance left (the latest answer's header, set).
 * `destinations list`, the status page and /metrics read it, so every process sees every replica's work.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('destination_counters')
    .ifNotExists()
    .addColumn('destination', t.text, (c) => c.notNull())
    .addColumn('counter', t.text, (c) => c.notNull())
    .addColumn('value', t.integer, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('destination_counters_pk', ['destination', 'counter'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('destination_counters').ifExists().execute();
}

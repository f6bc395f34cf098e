/**
 * Migration 029: `destination_backfills`, one row per stored job (or watch change) that `destinations
 * backfill` queued for a destination configured after it arrived, keyed (destination, item): a second
 * backfill, or the same one run by two replicas at once, meets the key and queues nothing again, also once
 * the delivered event itself is pruned. And `destinations.deferred_until`: the end of a timed pause (a CRM's
 * allocation or 429 window), so that `destinations list` shows it as paused until then.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('destination_backfills')
    .ifNotExists()
    .addColumn('destination', t.text, (c) => c.notNull())
    // The job_id for a job's event; `change:<watch_changes.id>` for a watch change's.
    .addColumn('item', t.text, (c) => c.notNull())
    .addColumn('job_id', t.text, (c) => c.notNull())
    .addColumn('queued_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('destination_backfills_pk', ['destination', 'item'])
    .execute();
  await db.schema.alterTable('destinations').addColumn('deferred_until', t.text).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('destinations').dropColumn('deferred_until').execute();
  await db.schema.dropTable('destination_backfills').ifExists().execute();
}

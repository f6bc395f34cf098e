/**
 * Migration 006: destinations and their outbox. `destinations` holds each configured destination's state
 * (paused, active), `destination_kinds` which job kinds each event-driven destination takes (`*` for all),
 * and `outbox_events` one row per stored job revision and destination, written in the transaction that
 * stores the job, so that nothing can be lost between the commit and the dispatcher.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('destinations')
    .ifNotExists()
    .addColumn('name', t.text, (c) => c.primaryKey())
    .addColumn('type', t.text, (c) => c.notNull())
    // 1 while the destination is in the configuration last synced; 0 once removed from it.
    .addColumn('active', t.integer, (c) => c.notNull())
    .addColumn('paused_at', t.text)
    .addColumn('pause_reason', t.text)
    // The latest attempt that did not deliver, across its events: what `destinations list` shows.
    .addColumn('last_error', t.text)
    .addColumn('last_error_at', t.text)
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('destination_kinds')
    .ifNotExists()
    .addColumn('destination', t.text, (c) => c.notNull())
    // A JobKind, or '*' for every kind.
    .addColumn('kind', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('destination_kinds_pk', ['destination', 'kind'])
    .execute();
  await db.schema
    .createTable('outbox_events')
    .ifNotExists()
    .addColumn('id', t.serial, (c) => c.primaryKey())
    .addColumn('destination', t.text, (c) => c.notNull())
    .addColumn('job_id', t.text, (c) => c.notNull())
    .addColumn('revision', t.integer, (c) => c.notNull())
    // pending (to deliver, or being delivered), delivered, failed (schedule spent), superseded.
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('next_attempt_at', t.text, (c) => c.notNull())
    // A dispatcher's claim: no other one takes the event before claimed_until (visibility timeout).
    .addColumn('claimed_by', t.text)
    .addColumn('claimed_until', t.text)
    .addColumn('last_status', t.integer)
    .addColumn('last_error', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addColumn('delivered_at', t.text)
    .execute();
  // The dispatcher's claim walks this index in due order and stops at the first event not yet due.
  await db.schema
    .createIndex('outbox_events_due')
    .ifNotExists()
    .on('outbox_events')
    .columns(['destination', 'status', 'next_attempt_at'])
    .execute();
  // Revision order: an event waits while an earlier revision of its job is pending for the destination.
  await db.schema
    .createIndex('outbox_events_job')
    .ifNotExists()
    .on('outbox_events')
    .columns(['destination', 'job_id', 'revision'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('outbox_events').ifExists().execute();
  await db.schema.dropTable('destination_kinds').ifExists().execute();
  await db.schema.dropTable('destinations').ifExists().execute();
}

/**
 * Migration 026: what the alert destinations (Slack, e-mail) remember. `alert_sends`: each message posted
 * for an event to one route target, so that an event retried after a partial success posts only to the
 * targets still owed (exactly once per target, but for an answer lost in flight). `alert_digest_items`:
 * the changes a digest route gathered for a target, each in exactly one digest (`digest_id` set when a
 * tick takes it, `posted_at` once its message is posted).
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('alert_sends')
    .ifNotExists()
    .addColumn('destination', t.text, (c) => c.notNull())
    .addColumn('event_id', t.text, (c) => c.notNull())
    // The route's index and its target (a channel, a user id, an address), e.g. `0:#champions`.
    .addColumn('target', t.text, (c) => c.notNull())
    .addColumn('sent_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_sends_pk', ['destination', 'event_id', 'target'])
    .execute();
  await db.schema
    .createTable('alert_digest_items')
    .ifNotExists()
    .addColumn('id', t.serial, (c) => c.primaryKey())
    .addColumn('destination', t.text, (c) => c.notNull())
    .addColumn('route', t.integer, (c) => c.notNull())
    .addColumn('target', t.text, (c) => c.notNull())
    .addColumn('change_id', t.text, (c) => c.notNull())
    // The change as the digest lists it (JSON: watch, change, one line of words).
    .addColumn('line', t.text, (c) => c.notNull())
    .addColumn('gathered_at', t.text, (c) => c.notNull())
    .addColumn('digest_id', t.text)
    .addColumn('posted_at', t.text)
    .execute();
  await db.schema
    .createIndex('alert_digest_items_once')
    .ifNotExists()
    .on('alert_digest_items')
    .columns(['destination', 'route', 'target', 'change_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alert_digest_items').ifExists().execute();
  await db.schema.dropTable('alert_sends').ifExists().execute();
}

/**
 * Migration 005: status page sessions, kept server-side so that signing out ends a session on every
 * replica at once. The cookie only names a row (and proves, by an HMAC keyed by the admin token, that the
 * server made it); the row's absence or expiry ends the session.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('ui_sessions')
    .ifNotExists()
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('expires_at', t.text, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ui_sessions').ifExists().execute();
}

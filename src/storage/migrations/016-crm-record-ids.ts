/**
 * Migration 016: crm_record_ids, the record ids a CRM already holds, keyed (destination, object, key): a
 * company or contact found once (adopted by its domain, e-mail or LinkedIn URL, or written) is never looked
 * for again. HubSpot's adoption cache; Pipedrive's key → id map.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('crm_record_ids')
    .ifNotExists()
    .addColumn('destination', t.text, (c) => c.notNull())
    // companies or contacts (the core's names, whatever the CRM calls them).
    .addColumn('object', t.text, (c) => c.notNull())
    // The normalized key (a domain, an e-mail, a LinkedIn URL).
    .addColumn('key', t.text, (c) => c.notNull())
    .addColumn('record_id', t.text, (c) => c.notNull())
    .addColumn('recorded_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('crm_record_ids_pk', ['destination', 'object', 'key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('crm_record_ids').ifExists().execute();
}

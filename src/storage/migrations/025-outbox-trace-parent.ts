/**
 * Migration 025: `outbox_events.trace_parent`, the W3C traceparent of the delivery that stored the event's
 * job, written only while tracing is on (issue 40): the destination attempt continues that trace, so one
 * trace runs from the socket to the CRM write. Null for events written with tracing off.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('outbox_events').addColumn('trace_parent', t.text).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox_events').dropColumn('trace_parent').execute();
}

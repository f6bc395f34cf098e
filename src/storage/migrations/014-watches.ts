/**
 * Migration 014: watches (src/watches/). `watch_cycles` holds each watch's cycles (when each began and
 * ends, what it checked, found and spent, and why it stopped early), `watch_rows` the memory of every
 * watched row (the last state observed and the cycle it was last checked in), `watch_changes` every change
 * found. An outbox event may now carry a change (`outbox_events.change_id`) instead of a job revision.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('watch_cycles')
    .ifNotExists()
    .addColumn('watch', t.text, (c) => c.notNull())
    .addColumn('cycle', t.integer, (c) => c.notNull())
    .addColumn('started_at', t.text, (c) => c.notNull())
    // started_at + the watch's period: when the next cycle may begin.
    .addColumn('ends_at', t.text, (c) => c.notNull())
    .addColumn('finished_at', t.text)
    // Valid rows of the source at its latest reading.
    .addColumn('rows', t.integer, (c) => c.notNull())
    .addColumn('checked', t.integer, (c) => c.notNull())
    .addColumn('baseline', t.integer, (c) => c.notNull())
    .addColumn('changes', t.integer, (c) => c.notNull())
    // usage.total_usd summed, in millionths of a dollar (a 64-bit integer on both dialects).
    .addColumn('usd_micros', 'bigint', (c) => c.notNull())
    // null, or why the cycle stopped before its rows were all checked: quota, max_usd, auth, source.
    .addColumn('stopped', t.text)
    // 1 once "this cycle cannot finish in its period" has been said (said once, whichever process runs it).
    .addColumn('overrun_noted', t.integer, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('watch_cycles_pk', ['watch', 'cycle'])
    .execute();
  await db.schema
    .createTable('watch_rows')
    .ifNotExists()
    .addColumn('watch', t.text, (c) => c.notNull())
    // A launch row's key (launch/row-key.ts) over the request with relative dates as written.
    .addColumn('row_key', t.text, (c) => c.notNull())
    // The carried custom_fields of the latest check, JSON.
    .addColumn('custom_fields', t.text, (c) => c.notNull())
    // The last state observed (JSON); null until a check answered something known.
    .addColumn('state', t.text)
    .addColumn('checked_cycle', t.integer, (c) => c.notNull())
    .addColumn('checked_at', t.text, (c) => c.notNull())
    .addColumn('job_id', t.text)
    .addColumn('first_seen_at', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('watch_rows_pk', ['watch', 'row_key'])
    .execute();
  await db.schema
    .createTable('watch_changes')
    .ifNotExists()
    .addColumn('id', t.serial, (c) => c.primaryKey())
    .addColumn('watch', t.text, (c) => c.notNull())
    .addColumn('row_key', t.text, (c) => c.notNull())
    .addColumn('cycle', t.integer, (c) => c.notNull())
    // baseline, moved, left, returned, title, new_person.
    .addColumn('change', t.text, (c) => c.notNull())
    // What makes two changes of one row in one cycle different (a search's person id; '' for a job change).
    .addColumn('change_key', t.text, (c) => c.notNull())
    .addColumn('custom_fields', t.text, (c) => c.notNull())
    .addColumn('before', t.text)
    .addColumn('after', t.text, (c) => c.notNull())
    .addColumn('detected_at', t.text, (c) => c.notNull())
    .addColumn('job_id', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('watch_changes_once')
    .ifNotExists()
    .unique()
    .on('watch_changes')
    .columns(['watch', 'row_key', 'cycle', 'change_key'])
    .execute();
  await db.schema
    .createIndex('watch_changes_detected')
    .ifNotExists()
    .on('watch_changes')
    .columns(['watch', 'detected_at'])
    .execute();
  await db.schema.alterTable('outbox_events').addColumn('change_id', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox_events').dropColumn('change_id').execute();
  await db.schema.dropTable('watch_changes').ifExists().execute();
  await db.schema.dropTable('watch_rows').ifExists().execute();
  await db.schema.dropTable('watch_cycles').ifExists().execute();
}

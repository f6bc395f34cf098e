/**
 * Migration 027: `watch_plays`, what a watch's plays started for each change (src/watches/plays/): one row
 * per change and play, unique, written in the transaction that records the change, so that a departure
 * starts one successor search and a change one CRM task, ever, whichever cycle, restart or replica meets
 * it again. The row holds the search's job (and the cycle that paid for it) or the task's id once made.
 */
import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('watch_plays')
    .ifNotExists()
    .addColumn('id', t.serial, (c) => c.primaryKey())
    .addColumn('watch', t.text, (c) => c.notNull())
    // watch_changes.id of the change that started the play.
    .addColumn('change_id', 'bigint', (c) => c.notNull())
    // successor, task.
    .addColumn('play', t.text, (c) => c.notNull())
    // pending, claimed (being carried out), running (a search answered RUNNING), done, failed.
    .addColumn('state', t.text, (c) => c.notNull())
    // The cycle whose budget paid for the search; null until it is launched.
    .addColumn('cycle', t.integer)
    .addColumn('job_id', t.text)
    .addColumn('task_id', t.text)
    .addColumn('destination', t.text)
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('next_attempt_at', t.text, (c) => c.notNull())
    // Why it failed, or what it came to (persons found), short.
    .addColumn('detail', t.text)
    .addColumn('usd_micros', 'bigint', (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('watch_plays_once')
    .ifNotExists()
    .unique()
    .on('watch_plays')
    .columns(['change_id', 'play'])
    .execute();
  await db.schema
    .createIndex('watch_plays_due')
    .ifNotExists()
    .on('watch_plays')
    .columns(['watch', 'play', 'state'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('watch_plays').ifExists().execute();
}

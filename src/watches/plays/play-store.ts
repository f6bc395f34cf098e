/**
 * The plays' table (migration 027, `watch_plays`): one row per change and play, started in the transaction
 * that records the change (record-check.ts), unique on (change, play), so that nothing a later cycle, a
 * restart or another replica does can start the same play twice. A play is claimed before its call goes
 * out (a successor search is at most once: a claim whose answer never came is not sent again), and ends
 * done (the search's job, the task's id) or failed (why).
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { WatchPlaysTable } from '../../storage/tables/watch-tables.js';
import type { WatchChange } from '../watch-store.js';
import type { WatchPlays } from './play-config.js';

/** A play as stored. */
export type PlayRow = Selectable<WatchPlaysTable>;
/** The plays. */
export type PlayName = 'successor' | 'task';

/** Starts the plays `plays` asks for on `changes` (just written in `trx`); returns how many started. */
export async function startPlays(
  trx: Transaction<Database>,
  watch: string,
  plays: WatchPlays | undefined,
  changes: readonly WatchChange[],
  nowIso: string,
): Promise<number> {
  if (plays === undefined) return 0;
  const values = [];
  for (const change of changes) {
    for (const name of ['successor', 'task'] as const) {
      const play = plays[name];
      if (play === undefined || !(play.on as readonly string[]).includes(change.change)) continue;
      values.push({
        watch,
        change_id: change.id,
        play: name,
        state: 'pending',
        cycle: null,
        job_id: null,
        task_id: null,
        destination: name === 'task' ? (plays.task?.destination ?? null) : null,
        attempts: 0,
        next_attempt_at: nowIso,
        detail: null,
        usd_micros: 0,
        created_at: nowIso,
        updated_at: nowIso,
      });
    }
  }
  if (values.length === 0) return 0;
  const inserted = await trx
    .insertInto('watch_plays')
    .values(values)
    .onConflict((oc) => oc.columns(['change_id', 'play']).doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}

/** A pending play with the change that started it. */
export interface DuePlay {
  readonly play: PlayRow;
  readonly change: WatchChange;
}

/** Pending plays of `watch` due at `nowIso`, oldest first, at most `limit`. */
export async function duePlays(
  db: Kysely<Database>,
  watch: string,
  play: PlayName,
  nowIso: string,
  limit: number,
): Promise<DuePlay[]> {
  const rows = await db
    .selectFrom('watch_plays as p')
    .innerJoin('watch_changes as c', 'c.id', 'p.change_id')
    .selectAll('p')
    .select([
      'c.id as c_id',
      'c.watch as c_watch',
      'c.row_key as c_row_key',
      'c.cycle as c_cycle',
      'c.change as c_change',
      'c.change_key as c_change_key',
      'c.custom_fields as c_custom_fields',
      'c.before as c_before',
      'c.after as c_after',
      'c.detected_at as c_detected_at',
      'c.job_id as c_job_id',
    ])
    .where('p.watch', '=', watch)
    .where('p.play', '=', play)
    .where('p.state', '=', 'pending')
    .where('p.next_attempt_at', '<=', nowIso)
    .orderBy('p.id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    play: {
      id: row.id,
      watch: row.watch,
      change_id: row.change_id,
      play: row.play,
      state: row.state,
      cycle: row.cycle,
      job_id: row.job_id,
      task_id: row.task_id,
      destination: row.destination,
      attempts: row.attempts,
      next_attempt_at: row.next_attempt_at,
      detail: row.detail,
      usd_micros: row.usd_micros,
      created_at: row.created_at,
      updated_at: row.updated_at,
    },
    change: {
      id: row.c_id,
      watch: row.c_watch,
      row_key: row.c_row_key,
      cycle: row.c_cycle,
      change: row.c_change,
      change_key: row.c_change_key,
      custom_fields: row.c_custom_fields,
      before: row.c_before,
      after: row.c_after,
      detected_at: row.c_detected_at,
      job_id: row.c_job_id,
    },
  }));
}

/** True when `watch` has a play in `states` (of `play`, if given). */
export async function hasPlays(
  db: Kysely<Database>,
  watch: string,
  states: readonly string[],
  play?: PlayName,
): Promise<boolean> {
  let query = db
    .selectFrom('watch_plays')
    .select('id')
    .where('watch', '=', watch)
    .where('state', 'in', states);
  if (play !== undefined) query = query.where('play', '=', play);
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

/** Moves play `id` from `from` to `to` with `values`; true when this call did (a claim is won once). */
export async function movePlay(
  db: Kysely<Database>,
  id: number | string,
  from: string,
  to: string,
  values: Partial<
    Pick<PlayRow, 'cycle' | 'job_id' | 'task_id' | 'attempts' | 'next_attempt_at' | 'detail'>
  > & {
    readonly updated_at: string;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('watch_plays')
    .set({ ...values, state: to })
    .where('id', '=', Number(id))
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Plays of `watch` started by the changes `changeIds`, for the CLI and the status page. */
export async function playsOfChanges(
  db: Kysely<Database>,
  changeIds: readonly (number | string)[],
): Promise<Map<string, PlayRow[]>> {
  const byChange = new Map<string, PlayRow[]>();
  if (changeIds.length === 0) return byChange;
  for (let start = 0; start < changeIds.length; start += 500) {
    const rows = await db
      .selectFrom('watch_plays')
      .selectAll()
      .where('change_id', 'in', changeIds.slice(start, start + 500).map(Number))
      .execute();
    for (const row of rows) {
      const key = String(row.change_id);
      byChange.set(key, [...(byChange.get(key) ?? []), row]);
    }
  }
  return byChange;
}

/** Counts of `watch`'s plays by play and state. */
export async function playCounts(
  db: Kysely<Database>,
  watch: string,
): Promise<Array<{ play: string; state: string; count: number }>> {
  const rows = await db
    .selectFrom('watch_plays')
    .select(({ fn }) => ['play', 'state', fn.countAll().as('count')])
    .where('watch', '=', watch)
    .groupBy(['play', 'state'])
    .execute();
  return rows.map((row) => ({ play: row.play, state: row.state, count: Number(row.count) }));
}

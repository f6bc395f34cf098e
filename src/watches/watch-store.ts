/**
 * The watches' tables (migrations 014, 018): watch_cycles, watch_rows and watch_changes: the cycles, which
 * rows a cycle has checked, the changes found, and the totals. Recording a check is record-check.ts.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../storage/database.js';
import type { WatchChangesTable, WatchCyclesTable } from '../storage/tables/watch-tables.js';

/** A cycle as stored. */
export type WatchCycle = Selectable<WatchCyclesTable>;
/** A change as stored. */
export type WatchChange = Selectable<WatchChangesTable>;

/** Keys per statement: far below both dialects' parameter limits. */
const KEYS_PER_STATEMENT = 500;

/** The watch's latest cycle, if any. */
export async function latestCycle(db: Kysely<Database>, watch: string): Promise<WatchCycle | undefined> {
  return db
    .selectFrom('watch_cycles')
    .selectAll()
    .where('watch', '=', watch)
    .orderBy('cycle', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Cycle `cycle` of the watch, if begun. */
export async function getCycle(
  db: Kysely<Database>,
  watch: string,
  cycle: number,
): Promise<WatchCycle | undefined> {
  return db
    .selectFrom('watch_cycles')
    .selectAll()
    .where('watch', '=', watch)
    .where('cycle', '=', cycle)
    .executeTakeFirst();
}

/** The latest cycle of every watch. */
export async function latestCycles(db: Kysely<Database>): Promise<Map<string, WatchCycle>> {
  const rows = await db
    .selectFrom('watch_cycles as c')
    .selectAll('c')
    .where(({ eb, selectFrom }) =>
      eb(
        'c.cycle',
        '=',
        selectFrom('watch_cycles as l')
          .select(({ fn }) => fn.max('l.cycle').as('m'))
          .whereRef('l.watch', '=', 'c.watch'),
      ),
    )
    .execute();
  return new Map(rows.map((row) => [row.watch, row]));
}

/** Begins cycle `cycle` (once: a second start of the same cycle changes nothing) and returns it. */
export async function beginCycle(
  db: Kysely<Database>,
  input: { watch: string; cycle: number; startedAt: string; endsAt: string },
): Promise<WatchCycle> {
  await db
    .insertInto('watch_cycles')
    .values({
      watch: input.watch,
      cycle: input.cycle,
      started_at: input.startedAt,
      ends_at: input.endsAt,
      finished_at: null,
      rows: 0,
      checked: 0,
      baseline: 0,
      changes: 0,
      usd_micros: 0,
      stopped: null,
      overrun_noted: 0,
      updated_at: input.startedAt,
    })
    .onConflict((oc) => oc.columns(['watch', 'cycle']).doNothing())
    .execute();
  return db
    .selectFrom('watch_cycles')
    .selectAll()
    .where('watch', '=', input.watch)
    .where('cycle', '=', input.cycle)
    .executeTakeFirstOrThrow();
}

/** Records the source's row count at its latest reading. */
export async function setCycleRows(
  db: Kysely<Database>,
  watch: string,
  cycle: number,
  rows: number,
  nowIso: string,
): Promise<void> {
  await db
    .updateTable('watch_cycles')
    .set({ rows, updated_at: nowIso })
    .where('watch', '=', watch)
    .where('cycle', '=', cycle)
    .execute();
}

/** Marks the overrun as said; true for the one caller that marked it (say it once, across processes). */
export async function noteOverrun(db: Kysely<Database>, watch: string, cycle: number): Promise<boolean> {
  const result = await db
    .updateTable('watch_cycles')
    .set({ overrun_noted: 1 })
    .where('watch', '=', watch)
    .where('cycle', '=', cycle)
    .where('overrun_noted', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends the cycle: every row checked (`stopped` null) or stopped early for a reason. */
export async function finishCycle(
  db: Kysely<Database>,
  watch: string,
  cycle: number,
  stopped: string | null,
  nowIso: string,
): Promise<void> {
  await db
    .updateTable('watch_cycles')
    .set({ finished_at: nowIso, stopped, updated_at: nowIso })
    .where('watch', '=', watch)
    .where('cycle', '=', cycle)
    .where('finished_at', 'is', null)
    .execute();
}

/** The keys among `keys` already checked in `cycle`. */
export async function keysCheckedIn(
  db: Kysely<Database>,
  watch: string,
  cycle: number,
  keys: readonly string[],
): Promise<Set<string>> {
  const done = new Set<string>();
  for (let start = 0; start < keys.length; start += KEYS_PER_STATEMENT) {
    const rows = await db
      .selectFrom('watch_rows')
      .select('row_key')
      .where('watch', '=', watch)
      .where('checked_cycle', '>=', cycle)
      .where('row_key', 'in', keys.slice(start, start + KEYS_PER_STATEMENT))
      .execute();
    for (const row of rows) done.add(row.row_key);
  }
  return done;
}

/** The changes of `watch` detected at or after `sinceIso`, oldest first. */
export async function listChanges(
  db: Kysely<Database>,
  watch: string,
  sinceIso: string | undefined,
  limit = 10_000,
): Promise<WatchChange[]> {
  let query = db.selectFrom('watch_changes').selectAll().where('watch', '=', watch);
  if (sinceIso !== undefined) query = query.where('detected_at', '>=', sinceIso);
  return query.orderBy('id').limit(limit).execute();
}

/** The latest changes of every watch, newest first. */
export async function latestChanges(db: Kysely<Database>, limit: number): Promise<WatchChange[]> {
  return db.selectFrom('watch_changes').selectAll().orderBy('id', 'desc').limit(limit).execute();
}

/** Running totals per watch, from the database (true whichever process checked): for /metrics. */
export interface WatchTotals {
  readonly checked: ReadonlyMap<string, number>;
  readonly usd: ReadonlyMap<string, number>;
  /** `watch\u0000change` → count. */
  readonly changes: ReadonlyArray<{ watch: string; change: string; count: number }>;
}

/** Sums every cycle's counts and the changes by kind. */
export async function loadWatchTotals(db: Kysely<Database>): Promise<WatchTotals> {
  const cycles = await db
    .selectFrom('watch_cycles')
    .select(({ fn }) => [
      'watch',
      fn.sum<number | string>('checked').as('checked'),
      fn.sum<number | string>('usd_micros').as('usd'),
    ])
    .groupBy('watch')
    .execute();
  const changes = await db
    .selectFrom('watch_changes')
    .select(({ fn }) => ['watch', 'change', fn.countAll<number | string>().as('count')])
    .groupBy(['watch', 'change'])
    .execute();
  return {
    checked: new Map(cycles.map((row) => [row.watch, Number(row.checked)])),
    usd: new Map(cycles.map((row) => [row.watch, Number(row.usd) / 1e6])),
    changes: changes.map((row) => ({ watch: row.watch, change: row.change, count: Number(row.count) })),
  };
}

/** Rows a watch remembers. */
export async function countWatchRows(db: Kysely<Database>, watch: string): Promise<number> {
  const row = await db
    .selectFrom('watch_rows')
    .select(({ fn }) => fn.countAll<number | string>().as('n'))
    .where('watch', '=', watch)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

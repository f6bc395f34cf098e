/**
 * The watches' tables (migration 014): watch_cycles, watch_rows and watch_changes. A row's check is
 * recorded in one transaction (its new state, the changes found, their outbox events, the cycle's counts),
 * and only if the row was not already checked in that cycle, so that no row counts twice in a cycle
 * whatever process checked it.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../storage/database.js';
import { recordChangeEvents } from '../storage/job-store/record-outbox-events.js';
import type { WatchChangesTable, WatchCyclesTable } from '../storage/tables/watch-tables.js';
import type { Observation, WatchState } from './observe-answer.js';

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

/** One check to record. */
export interface CheckRecord {
  readonly watch: string;
  readonly cycle: number;
  readonly rowKey: string;
  readonly customFields: Readonly<Record<string, unknown>>;
  readonly jobId: string | undefined;
  /** What the answer cost, in millionths of a dollar. */
  readonly usdMicros: number;
  readonly nowIso: string;
}

/** What recording a check came to. */
export type CheckOutcome =
  | { readonly recorded: false }
  | { readonly recorded: true; readonly baseline: boolean; readonly changes: readonly WatchChange[] };

/**
 * Records a check of a row in one transaction: `observe` gets the row's last state and says what the
 * answer changes. Nothing is written when the row was already checked in this cycle (another process,
 * or a run before a crash, got there first).
 */
export async function recordCheck(
  db: Kysely<Database>,
  input: CheckRecord,
  observe: (previous: WatchState | undefined) => Observation,
): Promise<CheckOutcome> {
  return db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('watch_rows')
      .select(['state', 'checked_cycle'])
      .where('watch', '=', input.watch)
      .where('row_key', '=', input.rowKey)
      .executeTakeFirst();
    if (existing !== undefined && existing.checked_cycle >= input.cycle) return { recorded: false };
    const previous =
      existing?.state === null || existing?.state === undefined
        ? undefined
        : (JSON.parse(existing.state) as WatchState);
    const observation = observe(previous);
    const state =
      observation.state === undefined ? (existing?.state ?? null) : JSON.stringify(observation.state);
    const customFields = JSON.stringify(input.customFields);
    const conditional = await trx
      .insertInto('watch_rows')
      .values({
        watch: input.watch,
        row_key: input.rowKey,
        custom_fields: customFields,
        state,
        checked_cycle: input.cycle,
        checked_at: input.nowIso,
        job_id: input.jobId ?? null,
        first_seen_at: input.nowIso,
      })
      .onConflict((oc) =>
        oc
          .columns(['watch', 'row_key'])
          .doUpdateSet({
            custom_fields: customFields,
            state,
            checked_cycle: input.cycle,
            checked_at: input.nowIso,
            job_id: input.jobId ?? null,
          })
          .where('watch_rows.checked_cycle', '<', input.cycle),
      )
      .executeTakeFirst();
    if (Number(conditional.numInsertedOrUpdatedRows ?? 0n) === 0) return { recorded: false };
    const changes: WatchChange[] = [];
    if (observation.changes.length > 0 && input.jobId !== undefined) {
      const inserted = await trx
        .insertInto('watch_changes')
        .values(
          observation.changes.map((change) => ({
            watch: input.watch,
            row_key: input.rowKey,
            cycle: input.cycle,
            change: change.change,
            change_key: change.changeKey,
            custom_fields: customFields,
            before: change.before === null ? null : JSON.stringify(change.before),
            after: JSON.stringify(change.after),
            detected_at: input.nowIso,
            job_id: input.jobId!,
          })),
        )
        .onConflict((oc) => oc.columns(['watch', 'row_key', 'cycle', 'change_key']).doNothing())
        .returningAll()
        .execute();
      changes.push(...inserted);
      await recordChangeEvents(
        trx,
        inserted.map((row) => row.id),
        input.nowIso,
      );
    }
    await trx
      .updateTable('watch_cycles')
      .set((eb) => ({
        checked: eb('checked', '+', 1),
        baseline: eb('baseline', '+', observation.baseline ? 1 : 0),
        changes: eb('changes', '+', changes.length),
        usd_micros: eb('usd_micros', '+', input.usdMicros),
        updated_at: input.nowIso,
      }))
      .where('watch', '=', input.watch)
      .where('cycle', '=', input.cycle)
      .execute();
    return { recorded: true, baseline: observation.baseline, changes };
  });
}

/** Adds what a check cost when it could not be recorded as a check (an answer that was not a job). */
export async function addCycleSpend(
  db: Kysely<Database>,
  watch: string,
  cycle: number,
  usdMicros: number,
  nowIso: string,
): Promise<void> {
  if (usdMicros === 0) return;
  await db
    .updateTable('watch_cycles')
    .set((eb) => ({ usd_micros: eb('usd_micros', '+', usdMicros), updated_at: nowIso }))
    .where('watch', '=', watch)
    .where('cycle', '=', cycle)
    .execute();
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

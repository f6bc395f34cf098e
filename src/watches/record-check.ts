/**
 * Recording what a check of a watched row found (watch_rows, watch_changes, watch_cycles; migrations 014 and
 * 018). A check is recorded in one transaction (its new state, the changes found, their outbox events, the
 * cycle's counts), and only if the row was not already checked in that cycle, so that no row counts twice
 * in a cycle whatever process checked it. A RUNNING answer is recorded as the check (the row is not sent
 * again this cycle) with its job pending; what the finished job found and cost is recorded once, when its
 * copy is in the job store ({@link recordFinishedCheck}), against the cycle the row was checked in.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../storage/database.js';
import { recordChangeEvents } from '../storage/job-store/record-outbox-events.js';
import type { Observation, WatchState } from './observe-answer.js';
import type { WatchPlays } from './plays/play-config.js';
import { startPlays } from './plays/play-store.js';
import type { WatchChange } from './watch-store.js';

/** One check to record. */
export interface CheckRecord {
  readonly watch: string;
  readonly cycle: number;
  readonly rowKey: string;
  readonly customFields: Readonly<Record<string, unknown>>;
  readonly jobId: string | undefined;
  /** True when the answer was RUNNING: the job is pending until its finished copy is stored. */
  readonly pending: boolean;
  /** What the answer cost, in millionths of a dollar. */
  readonly usdMicros: number;
  readonly nowIso: string;
  /** The watch's plays: a change they follow starts them in the same transaction (plays/play-store.ts). */
  readonly plays?: WatchPlays | undefined;
}

/** What recording a check came to. */
export type CheckOutcome =
  | { readonly recorded: false }
  | { readonly recorded: true; readonly baseline: boolean; readonly changes: readonly WatchChange[] };

function parseState(text: string | null | undefined): WatchState | undefined {
  return text === null || text === undefined ? undefined : (JSON.parse(text) as WatchState);
}

/** Writes the changes of an observation, their outbox events and the cycle's counts; returns the changes. */
async function writeObservation(
  trx: Transaction<Database>,
  row: {
    watch: string;
    rowKey: string;
    cycle: number;
    customFields: string;
    jobId: string | undefined;
    plays?: WatchPlays | undefined;
  },
  observation: Observation,
  counts: { checked: number; usdMicros: number },
  nowIso: string,
): Promise<WatchChange[]> {
  let changes: WatchChange[] = [];
  if (observation.changes.length > 0 && row.jobId !== undefined) {
    const jobId = row.jobId;
    changes = await trx
      .insertInto('watch_changes')
      .values(
        observation.changes.map((change) => ({
          watch: row.watch,
          row_key: row.rowKey,
          cycle: row.cycle,
          change: change.change,
          change_key: change.changeKey,
          custom_fields: row.customFields,
          before: change.before === null ? null : JSON.stringify(change.before),
          after: JSON.stringify(change.after),
          detected_at: nowIso,
          job_id: jobId,
        })),
      )
      .onConflict((oc) => oc.columns(['watch', 'row_key', 'cycle', 'change_key']).doNothing())
      .returningAll()
      .execute();
    await recordChangeEvents(
      trx,
      changes.map((change) => change.id),
      nowIso,
    );
    await startPlays(trx, row.watch, row.plays, changes, nowIso);
  }
  await trx
    .updateTable('watch_cycles')
    .set((eb) => ({
      checked: eb('checked', '+', counts.checked),
      baseline: eb('baseline', '+', observation.baseline ? 1 : 0),
      changes: eb('changes', '+', changes.length),
      usd_micros: eb('usd_micros', '+', counts.usdMicros),
      updated_at: nowIso,
    }))
    .where('watch', '=', row.watch)
    .where('cycle', '=', row.cycle)
    .execute();
  return changes;
}

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
    const observation = observe(parseState(existing?.state));
    const state =
      observation.state === undefined ? (existing?.state ?? null) : JSON.stringify(observation.state);
    const customFields = JSON.stringify(input.customFields);
    // A newer check replaces a pending one: its answer is the newer word on the row.
    const pendingJobId = input.pending ? (input.jobId ?? null) : null;
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
        pending_job_id: pendingJobId,
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
            pending_job_id: pendingJobId,
          })
          .where('watch_rows.checked_cycle', '<', input.cycle),
      )
      .executeTakeFirst();
    if (Number(conditional.numInsertedOrUpdatedRows ?? 0n) === 0) return { recorded: false };
    const changes = await writeObservation(
      trx,
      { ...input, customFields },
      observation,
      { checked: 1, usdMicros: input.usdMicros },
      input.nowIso,
    );
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

/** A check whose RUNNING answer is pending. */
export interface PendingCheck {
  readonly rowKey: string;
  readonly jobId: string;
  /** The cycle the row was checked in: what the job found and cost counts there. */
  readonly cycle: number;
}

/** True when any check of `watch` is pending. */
export async function hasPendingChecks(db: Kysely<Database>, watch: string): Promise<boolean> {
  const row = await db
    .selectFrom('watch_rows')
    .select('row_key')
    .where('watch', '=', watch)
    .where('pending_job_id', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The pending checks of `watch` in `cycle`. */
export async function pendingChecksIn(
  db: Kysely<Database>,
  watch: string,
  cycle: number,
): Promise<PendingCheck[]> {
  const rows = await db
    .selectFrom('watch_rows')
    .select(['row_key', 'pending_job_id', 'checked_cycle'])
    .where('watch', '=', watch)
    .where('pending_job_id', 'is not', null)
    .where('checked_cycle', '=', cycle)
    .execute();
  return rows.map((row) => ({ rowKey: row.row_key, jobId: row.pending_job_id!, cycle: row.checked_cycle }));
}

/** The pending checks of `watch` whose job is stored finished, with its stored envelope, at most `limit`. */
export async function finishedPendingChecks(
  db: Kysely<Database>,
  watch: string,
  terminalStatuses: readonly string[],
  limit: number,
): Promise<Array<PendingCheck & { readonly envelopeZ: Uint8Array }>> {
  const rows = await db
    .selectFrom('watch_rows as w')
    .innerJoin('jobs as j', 'j.job_id', 'w.pending_job_id')
    .select(['w.row_key', 'w.pending_job_id', 'w.checked_cycle', 'j.envelope_z'])
    .where('w.watch', '=', watch)
    .where('w.pending_job_id', 'is not', null)
    .where('j.status', 'in', terminalStatuses)
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    rowKey: row.row_key,
    jobId: row.pending_job_id!,
    cycle: row.checked_cycle,
    envelopeZ: row.envelope_z,
  }));
}

/**
 * Records what the finished job of a pending check found: `observe` gets the row's last state. Written once:
 * nothing happens unless the row is still pending on that very job (a later check replaced it, or another
 * process recorded it first). The counts go to the cycle the row was checked in; `checked` is not counted
 * again.
 */
export async function recordFinishedCheck(
  db: Kysely<Database>,
  input: {
    watch: string;
    pending: PendingCheck;
    usdMicros: number;
    nowIso: string;
    plays?: WatchPlays | undefined;
  },
  observe: (previous: WatchState | undefined) => Observation,
): Promise<CheckOutcome> {
  const { watch, pending } = input;
  return db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('watch_rows')
      .select(['state', 'custom_fields', 'checked_cycle'])
      .where('watch', '=', watch)
      .where('row_key', '=', pending.rowKey)
      .where('pending_job_id', '=', pending.jobId)
      .executeTakeFirst();
    if (existing === undefined) return { recorded: false };
    const observation = observe(parseState(existing.state));
    const state = observation.state === undefined ? existing.state : JSON.stringify(observation.state);
    const updated = await trx
      .updateTable('watch_rows')
      .set({ state, pending_job_id: null })
      .where('watch', '=', watch)
      .where('row_key', '=', pending.rowKey)
      .where('pending_job_id', '=', pending.jobId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return { recorded: false };
    const changes = await writeObservation(
      trx,
      {
        watch,
        rowKey: pending.rowKey,
        cycle: existing.checked_cycle,
        customFields: existing.custom_fields,
        jobId: pending.jobId,
        plays: input.plays,
      },
      observation,
      { checked: 0, usdMicros: input.usdMicros },
      input.nowIso,
    );
    return { recorded: true, baseline: observation.baseline, changes };
  });
}

/**
 * What the CLI and the status page read and change about destinations: each one's counts and state,
 * replaying events, purging failed ones. Never reads a secret: only the database's view of them.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import { forgetSent } from './alerts/alert-ledger.js';
import { readCounters } from './destination-counters.js';
import { pendingSummary } from './destination-metrics.js';

/** One destination as `destinations list` shows it. */
export interface DestinationState {
  readonly name: string;
  readonly type: string;
  /** In the configuration last synced (false: removed; its events are kept). */
  readonly active: boolean;
  /** Paused until resumed, or by a timed pause (a CRM's allocation or 429 window) that has not ended. */
  readonly paused: boolean;
  /** The end of the timed pause in force (ISO 8601); null when none is, or when paused until resumed. */
  readonly paused_until: string | null;
  readonly pending: number;
  readonly delivered: number;
  readonly failed: number;
  /** Seconds since the oldest pending event was written; null when none is pending. */
  readonly oldest_pending_age_seconds: number | null;
  readonly last_error: string | null;
  readonly last_error_at: string | null;
  /** Running totals by name (a HubSpot destination's records, API calls, 429s, daily allowance). */
  readonly counters: Readonly<Record<string, number>>;
}

/** Whether the database knows a destination named `name` (recorded by a `serve` that configured it). */
export async function isKnownDestination(db: Kysely<Database>, name: string): Promise<boolean> {
  const row = await db.selectFrom('destinations').select('name').where('name', '=', name).executeTakeFirst();
  return row !== undefined;
}

/** Every destination the database knows, with its counts, by name. */
export async function listDestinationStates(
  db: Kysely<Database>,
  nowMs: number,
): Promise<DestinationState[]> {
  const destinations = await db.selectFrom('destinations').selectAll().orderBy('name').execute();
  const counts = await db
    .selectFrom('outbox_events')
    .select((eb) => ['destination', 'status', eb.fn.countAll().as('n')])
    .groupBy(['destination', 'status'])
    .execute();
  const pending = await pendingSummary(db);
  const counters = await readCounters(db);
  const count = (name: string, status: string) =>
    Number(counts.find((row) => row.destination === name && row.status === status)?.n ?? 0);
  return destinations.map((row) => {
    const oldest = pending.get(row.name)?.oldest ?? null;
    const deferred = row.deferred_until !== null && Date.parse(row.deferred_until) > nowMs;
    return {
      name: row.name,
      type: row.type,
      active: row.active === 1,
      paused: row.paused_at !== null || deferred,
      paused_until: row.paused_at === null && deferred ? row.deferred_until : null,
      pending: count(row.name, 'pending'),
      delivered: count(row.name, 'delivered'),
      failed: count(row.name, 'failed'),
      oldest_pending_age_seconds:
        oldest === null ? null : Math.max(0, Math.round((nowMs - Date.parse(oldest)) / 1000)),
      last_error: row.pause_reason ?? row.last_error,
      last_error_at: row.last_error_at,
      counters: counters.get(row.name) ?? {},
    };
  });
}

/** Which events `destinations replay` queues again. */
export interface ReplaySelection {
  /** Only failed events (otherwise failed and delivered ones). */
  readonly failed?: boolean;
  /** Only events written at or after this instant (ISO 8601). */
  readonly since?: string;
  /** Only events of these jobs. */
  readonly jobIds?: readonly string[];
  /** Pending events too (a dry run shows what the next delivery will write as well). */
  readonly pending?: boolean;
}

/** The selected events of `destination`, as a query (replay queues them, its dry run reads them). */
export function selectReplayEvents(db: Kysely<Database>, destination: string, selection: ReplaySelection) {
  let query = db
    .selectFrom('outbox_events')
    .where('destination', '=', destination)
    .where('status', 'in', [
      ...(selection.failed === true ? ['failed' as const] : ['failed' as const, 'delivered' as const]),
      ...(selection.pending === true ? ['pending' as const] : []),
    ]);
  if (selection.since !== undefined) query = query.where('created_at', '>=', selection.since);
  if (selection.jobIds !== undefined) query = query.where('job_id', 'in', [...selection.jobIds]);
  return query;
}

/**
 * Queues the selected events of `destination` again, due now, with their attempts reset (they count as
 * pending, no longer failed or delivered). Returns how many.
 */
export async function replayEvents(
  db: Kysely<Database>,
  destination: string,
  selection: ReplaySelection,
  nowIso: string,
): Promise<number> {
  // An alert destination posts a replayed event again only where it was delivered before (issue 38).
  const delivered = await selectReplayEvents(db, destination, selection)
    .where('status', '=', 'delivered')
    .where('change_id', 'is not', null)
    .select('change_id')
    .execute();
  // A change's event id (plan-outcome.ts changeDelivery): `watch_change_<id>`.
  await forgetSent(
    db,
    destination,
    delivered.map((row) => `watch_change_${String(row.change_id)}`),
  );
  const result = await db
    .updateTable('outbox_events')
    .set({
      status: 'pending',
      attempts: 0,
      next_attempt_at: nowIso,
      claimed_by: null,
      claimed_until: null,
      delivered_at: null,
      updated_at: nowIso,
    })
    .where('id', 'in', selectReplayEvents(db, destination, selection).select('id'))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Why a replay `since` an instant queued nothing, when the reason is that `destination` has no events of
 * that window at all (it was configured after the jobs arrived): how many jobs were stored since then, for
 * `destinations backfill`. Undefined when it has events there (none matched the selection) or nothing was stored.
 */
export async function storedWithoutEvents(
  db: Kysely<Database>,
  destination: string,
  sinceIso: string,
): Promise<number | undefined> {
  const event = await db
    .selectFrom('outbox_events')
    .select('id')
    .where('destination', '=', destination)
    .where('created_at', '>=', sinceIso)
    .limit(1)
    .executeTakeFirst();
  if (event !== undefined) return undefined;
  const stored = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('received_at', '>=', sinceIso)
    .executeTakeFirst();
  const count = Number(stored?.n ?? 0);
  return count === 0 ? undefined : count;
}

/** Deletes the failed events of `destination` (given up on for good); returns how many. */
export async function purgeFailedEvents(db: Kysely<Database>, destination: string): Promise<number> {
  const result = await db
    .deleteFrom('outbox_events')
    .where('destination', '=', destination)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

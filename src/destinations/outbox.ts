/**
 * The outbox, read side (the write side, in the storing transaction, is storage/job-store/record-outbox-events.ts):
 * claiming due events for a dispatcher, recording what each attempt came to, and syncing the configured
 * destinations' routing. A claim is a visibility timeout (`claimed_until`): no other dispatcher takes the
 * event before it ends, and on Postgres `FOR UPDATE SKIP LOCKED` keeps two replicas from claiming one
 * event at the same moment. An event is claimable only when no earlier revision of its job is still
 * pending for the same destination, so that one job's events arrive in revision order.
 */

import { type Kysely, sql } from 'kysely';
import { boundOutsideText } from '../contract/outside-text.js';
import type { Database } from '../storage/database.js';
import { decodeEnvelope } from '../storage/envelope-codec.js';
import type { HooksyncDatabase } from '../storage/open-database.js';
import type { ConfiguredDestination } from './destination-type.js';
import type { EventJob } from './plan-outcome.js';

/** A claimed event with what its delivery needs from the job. */
export interface ClaimedEvent {
  readonly id: string;
  readonly jobId: string;
  readonly revision: number;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** The watch change the event carries (watch_changes.id), when it carries one instead of a job revision. */
  readonly changeId?: string | undefined;
  /** The traceparent of the delivery that stored the job (migration 025), when tracing was on. */
  readonly traceParent?: string | undefined;
}

/** A watch change as its event delivers it (docs/watches.md). */
export interface EventChange {
  readonly id: string;
  readonly watch: string;
  readonly change: string;
  readonly key: string;
  readonly custom_fields: unknown;
  readonly before: unknown;
  readonly after: unknown;
  readonly detected_at: string;
  readonly job_id: string;
}

/** How an attempt (or a decision not to make one) ends for an event. */
export type EventCompletion =
  | { readonly id: string; readonly result: 'delivered'; readonly status: number }
  | {
      readonly id: string;
      readonly result: 'retry';
      readonly status: number | null;
      readonly error: string;
      readonly nextAttemptAt: string;
    }
  | { readonly id: string; readonly result: 'failed'; readonly status: number | null; readonly error: string }
  /** Not attempted, or answered 410: back to the queue as it was, due at `nextAttemptAt`. */
  | {
      readonly id: string;
      readonly result: 'release';
      readonly nextAttemptAt: string;
      readonly status?: number;
      readonly error?: string;
    }
  /** A newer revision of the job is stored: this one is not sent. */
  | { readonly id: string; readonly result: 'superseded' };

/** Claims up to `limit` due events of `destination` for `holder` until `claimedUntil`. */
export async function claimEvents(
  database: HooksyncDatabase,
  options: { destination: string; holder: string; limit: number; nowIso: string; claimedUntil: string },
): Promise<ClaimedEvent[]> {
  const { db } = database;
  const { destination, nowIso } = options;
  let due = db
    .selectFrom('outbox_events as e')
    .select('e.id')
    .where('e.destination', '=', destination)
    .where('e.status', '=', 'pending')
    .where('e.next_attempt_at', '<=', nowIso)
    .where((eb) => eb.or([eb('e.claimed_until', 'is', null), eb('e.claimed_until', '<=', nowIso)]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('outbox_events as p')
            .select(sql.lit(1).as('one'))
            .whereRef('p.destination', '=', 'e.destination')
            .whereRef('p.job_id', '=', 'e.job_id')
            .whereRef('p.revision', '<', 'e.revision')
            .where('p.status', '=', 'pending')
            // A change's event (revision 0) orders nothing: it is not a revision of the job.
            .where('p.change_id', 'is', null),
        ),
      ),
    )
    .orderBy('e.next_attempt_at')
    .orderBy('e.id')
    .limit(options.limit);
  if (database.dialect === 'postgres') due = due.forUpdate().skipLocked();
  const rows = await db
    .updateTable('outbox_events')
    .set({ claimed_by: options.holder, claimed_until: options.claimedUntil })
    .where('id', 'in', due)
    .returning(['id', 'job_id', 'revision', 'attempts', 'change_id', 'trace_parent'])
    .execute();
  return rows
    .map((row) => ({
      id: String(row.id),
      jobId: row.job_id,
      revision: Number(row.revision),
      attempts: row.attempts,
      ...(row.change_id === null ? {} : { changeId: String(row.change_id) }),
      ...(row.trace_parent === null ? {} : { traceParent: row.trace_parent }),
    }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * The stored jobs behind claimed events: envelope text, kind, source, status and current revision.
 * `envelope: false` (a destination that reads rows only): the envelope is neither read nor decoded, its
 * text is empty.
 */
export async function loadEventJobs(
  db: Kysely<Database>,
  jobIds: readonly string[],
  options: { readonly envelope: boolean } = { envelope: true },
): Promise<Map<string, EventJob>> {
  if (jobIds.length === 0) return new Map();
  const where = [...new Set(jobIds)];
  const columns = ['job_id', 'kind', 'source', 'status', 'revision'] as const;
  if (!options.envelope) {
    const rows = await db.selectFrom('jobs').select(columns).where('job_id', 'in', where).execute();
    return new Map(rows.map((row) => [row.job_id, { ...row, envelope: '' }]));
  }
  const rows = await db
    .selectFrom('jobs')
    .select([...columns, 'envelope_z'])
    .where('job_id', 'in', where)
    .execute();
  // The stored bytes are compressed; an event carries the envelope's exact original text.
  return new Map(
    rows.map(({ envelope_z, ...row }) => [row.job_id, { ...row, envelope: decodeEnvelope(envelope_z) }]),
  );
}

/**
 * The watch changes behind claimed events (watch_changes, owned by src/watches/, read here as the jobs
 * are: an event carries what it names).
 */
export async function loadEventChanges(
  db: Kysely<Database>,
  changeIds: readonly string[],
): Promise<Map<string, EventChange>> {
  if (changeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('watch_changes')
    .selectAll()
    .where('id', 'in', [...new Set(changeIds)].map(Number))
    .execute();
  const json = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
  return new Map(
    rows.map((row) => [
      String(row.id),
      {
        id: String(row.id),
        watch: row.watch,
        change: row.change,
        key: row.row_key,
        custom_fields: json(row.custom_fields),
        before: json(row.before),
        after: json(row.after),
        detected_at: row.detected_at,
        job_id: row.job_id,
      },
    ]),
  );
}

/** Job ids among `jobIds` whose normalized rows are not written yet (their template rows would be missing). */
export async function queuedForNormalizer(
  db: Kysely<Database>,
  jobIds: readonly string[],
): Promise<Set<string>> {
  if (jobIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('normalization_queue')
    .select('job_id')
    .where('job_id', 'in', [...new Set(jobIds)])
    .execute();
  return new Set(rows.map((row) => row.job_id));
}

/** Records how attempts ended, in one transaction; only events still pending change. */
export async function completeEvents(
  db: Kysely<Database>,
  destination: string,
  completions: readonly EventCompletion[],
  nowIso: string,
): Promise<void> {
  if (completions.length === 0) return;
  await db.transaction().execute(async (trx) => {
    let lastError: string | undefined;
    const base = { claimed_by: null, claimed_until: null, updated_at: nowIso };
    // The steady state, delivered events, goes in one statement per answer status.
    const delivered = new Map<number, string[]>();
    const superseded: string[] = [];
    for (const done of completions) {
      if (done.result === 'delivered') {
        const ids = delivered.get(done.status);
        if (ids === undefined) delivered.set(done.status, [done.id]);
        else ids.push(done.id);
      } else if (done.result === 'superseded') superseded.push(done.id);
    }
    for (const [status, ids] of delivered) {
      await trx
        .updateTable('outbox_events')
        .set((eb) => ({
          ...base,
          status: 'delivered',
          attempts: eb('attempts', '+', 1),
          last_status: status,
          last_error: null,
          delivered_at: nowIso,
        }))
        .where('id', 'in', ids)
        .where('status', '=', 'pending')
        .execute();
    }
    if (superseded.length > 0) {
      await trx
        .updateTable('outbox_events')
        .set({ ...base, status: 'superseded' })
        .where('id', 'in', superseded)
        .where('status', '=', 'pending')
        .execute();
    }
    for (const done of completions) {
      const update = trx
        .updateTable('outbox_events')
        .where('id', '=', done.id)
        .where('status', '=', 'pending');
      switch (done.result) {
        case 'delivered':
        case 'superseded':
          break;
        case 'retry':
        case 'failed': {
          const error = boundOutsideText(done.error);
          lastError = error;
          await update
            .set((eb) => ({
              ...base,
              ...(done.result === 'failed'
                ? { status: 'failed' as const }
                : { next_attempt_at: done.nextAttemptAt }),
              attempts: eb('attempts', '+', 1),
              last_status: done.status,
              last_error: error,
            }))
            .execute();
          break;
        }
        case 'release': {
          const error = done.error === undefined ? undefined : boundOutsideText(done.error);
          if (error !== undefined) lastError = error;
          await update
            .set({
              ...base,
              next_attempt_at: done.nextAttemptAt,
              ...(error !== undefined ? { last_status: done.status ?? null, last_error: error } : {}),
            })
            .execute();
          break;
        }
      }
    }
    if (lastError !== undefined) {
      await trx
        .updateTable('destinations')
        .set({ last_error: lastError, last_error_at: nowIso })
        .where('name', '=', destination)
        .execute();
    }
  });
}

/**
 * Makes the database's routing match `configured`: each destination recorded (active), the kinds of the
 * event-driven ones in destination_kinds, and those no longer configured inactive with no routing (their
 * events stay). One transaction, so a storing transaction sees the old routing or the new, never half.
 */
export async function syncDestinations(
  db: Kysely<Database>,
  configured: readonly ConfiguredDestination[],
  nowIso: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('destination_kinds').execute();
    await trx
      .updateTable('destinations')
      .set({ active: 0, updated_at: nowIso })
      .where('active', '=', 1)
      .execute();
    for (const destination of configured) {
      await trx
        .insertInto('destinations')
        .values({
          name: destination.name,
          type: destination.type,
          active: 1,
          paused_at: null,
          pause_reason: null,
          last_error: null,
          last_error_at: null,
          updated_at: nowIso,
        })
        .onConflict((oc) =>
          oc.column('name').doUpdateSet({ type: destination.type, active: 1, updated_at: nowIso }),
        )
        .execute();
      if (destination.dispatch === undefined) continue;
      const kinds = destination.dispatch.kinds ?? ['*'];
      await trx
        .insertInto('destination_kinds')
        .values([...new Set(kinds)].map((kind) => ({ destination: destination.name, kind })))
        .execute();
    }
  });
}

/** Pauses `destination` (a 410 answer) with the reason; a no-op when it is paused already. */
export async function pauseDestination(
  db: Kysely<Database>,
  destination: string,
  reason: string,
  nowIso: string,
) {
  await db
    .updateTable('destinations')
    .set({ paused_at: nowIso, pause_reason: boundOutsideText(reason), updated_at: nowIso })
    .where('name', '=', destination)
    .where('paused_at', 'is', null)
    .execute();
}

/** Resumes a paused destination; false when no destination has that name. */
export async function resumeDestination(
  db: Kysely<Database>,
  destination: string,
  nowIso: string,
): Promise<boolean> {
  const result = await db
    .updateTable('destinations')
    .set({ paused_at: null, pause_reason: null, updated_at: nowIso })
    .where('name', '=', destination)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The names of the paused destinations. */
export async function pausedDestinations(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await db
    .selectFrom('destinations')
    .select('name')
    .where('paused_at', 'is not', null)
    .execute();
  return new Set(rows.map((row) => row.name));
}

/** Deletes delivered and superseded events last changed before `beforeIso` (failed ones stay). */
export async function pruneDeliveredEvents(db: Kysely<Database>, beforeIso: string): Promise<number> {
  const result = await db
    .deleteFrom('outbox_events')
    .where('status', 'in', ['delivered', 'superseded'])
    .where('updated_at', '<', beforeIso)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Moves every pending event of `destination` due before `untilIso` to `untilIso`, and says why in
 * last_error and until when in deferred_until: a pause all replicas honour (their claims only take due
 * events), ended by the clock.
 */
export async function deferPendingEvents(
  db: Kysely<Database>,
  destination: string,
  untilIso: string,
  reason: string,
  nowIso: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('outbox_events')
      .set({ next_attempt_at: untilIso })
      .where('destination', '=', destination)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<', untilIso)
      .execute();
    await trx
      .updateTable('destinations')
      .set({ last_error: boundOutsideText(reason), last_error_at: nowIso, deferred_until: untilIso })
      .where('name', '=', destination)
      .execute();
  });
}

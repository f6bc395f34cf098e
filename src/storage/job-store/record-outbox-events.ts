/**
 * The write side of the destinations' outbox (src/destinations/ reads and delivers it): inside the
 * transaction that stores jobs, one pending event per written job revision and per destination whose
 * kinds match (destination_kinds). Routing is read in the same transaction (which kinds are taken, then,
 * in the statement that writes the events, by whom), so whatever process stores the job (serve's worker,
 * the CLI, a library user) writes the events the last synced configuration asks for.
 */
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';
import { CHUNKED_ROW_RUNNER, type RowRunner } from './row-runner.js';

/** The event kind a destination names to receive watch changes (docs/watches.md). */
export const WATCH_CHANGE_KIND = 'watch_change';
/** The kind of a route that takes every job's revisions (not watch changes: those are asked for by name). */
const EVERY_KIND = '*';

/** Change ids per statement: far below both dialects' parameter limits. */
const IDS_PER_STATEMENT = 500;

/** The columns every new event starts with, in the order {@link pendingValues} gives their values. */
const PENDING_COLUMNS = ['status', 'attempts', 'next_attempt_at', 'created_at', 'updated_at'] as const;

/** A new event's state: pending, never attempted, due and stamped at `nowIso`. */
function pendingValues<DB, TB extends keyof DB>(s: ExpressionBuilder<DB, TB>, nowIso: string) {
  return [
    sql.lit('pending').as('status'),
    s.lit(0).as('attempts'),
    s.val(nowIso).as('next_attempt_at'),
    s.val(nowIso).as('created_at'),
    s.val(nowIso).as('updated_at'),
  ] as const;
}

/**
 * Records the outbox events of `jobs`, just written in the open transaction `trx` (each at its current
 * revision, which is the one this transaction wrote), stamped `nowIso`. Through the row runner: on SQLite
 * one prepared statement run per job, compiled once; on Postgres one statement per chunk of jobs. The kinds
 * any destination takes are read first, once for the batch: a job whose kind none takes (every job, on a
 * receiver without destinations) costs no statement (issue 42: ~4 µs of the store worker's CPU per reveal).
 */
export async function recordOutboxEvents(
  trx: Kysely<Database>,
  jobs: readonly { readonly jobId: string; readonly kind: string }[],
  nowIso: string,
  runner: RowRunner = CHUNKED_ROW_RUNNER,
): Promise<void> {
  if (jobs.length === 0) return;
  const routes = await trx.selectFrom('destination_kinds').select('kind').execute();
  const kinds = new Set(routes.map((route) => route.kind));
  const routed = kinds.has(EVERY_KIND) ? jobs : jobs.filter((job) => kinds.has(job.kind));
  await runner.run(
    trx,
    routed.map((job) => ({ job_id: job.jobId, now: nowIso })),
    insertEvents,
  );
}

/** The events of `rows`' jobs (every row's `now` is the same batch time); the same function on every call. */
function insertEvents(trx: Kysely<Database>, rows: readonly { job_id: string; now: string }[]) {
  const nowIso = rows[0]!.now;
  return trx
    .insertInto('outbox_events')
    .columns(['destination', 'job_id', 'revision', ...PENDING_COLUMNS])
    .expression((eb) =>
      eb
        .selectFrom('jobs')
        // CROSS JOIN keeps jobs as SQLite's outer loop: the job_id index finds the jobs of the batch, then
        // each meets the handful of routes. An inner join let SQLite scan every stored job per route.
        .crossJoin('destination_kinds as dk')
        .where((eb) => eb.or([eb('dk.kind', '=', eb.ref('jobs.kind')), eb('dk.kind', '=', EVERY_KIND)]))
        .select((s) => ['dk.destination', 'jobs.job_id', 'jobs.revision', ...pendingValues(s, nowIso)])
        .where(
          'jobs.job_id',
          'in',
          rows.map((row) => row.job_id),
        ),
    );
}

/**
 * Stamps the events just recorded for `written` jobs with the traceparent of the delivery that stored each
 * (tracing on, issue 40), so that their attempts continue its trace. Jobs without one cost nothing.
 */
export async function recordTraceParents(
  trx: Kysely<Database>,
  written: readonly { job: { jobId: string; traceParent?: string }; revision: number }[],
): Promise<void> {
  for (const { job, revision } of written) {
    if (job.traceParent === undefined) continue;
    await trx
      .updateTable('outbox_events')
      .set({ trace_parent: job.traceParent })
      .where('job_id', '=', job.jobId)
      .where('revision', '=', revision)
      .where('change_id', 'is', null)
      .execute();
  }
}

/**
 * Records the outbox events of watch changes (watch_changes ids `changeIds`, just written in the open
 * transaction `trx`): one per change and per destination that takes the kind `watch_change` (a destination
 * with every kind, `*`, takes job revisions only: a change is asked for by name). The event names the job
 * that found the change, at revision 0, and the change itself.
 */
export async function recordChangeEvents(
  trx: Kysely<Database>,
  changeIds: readonly (number | string)[],
  nowIso: string,
): Promise<void> {
  for (let start = 0; start < changeIds.length; start += IDS_PER_STATEMENT) {
    const chunk = changeIds.slice(start, start + IDS_PER_STATEMENT).map(Number);
    await trx
      .insertInto('outbox_events')
      .columns(['destination', 'job_id', 'revision', 'change_id', ...PENDING_COLUMNS])
      .expression((eb) =>
        eb
          .selectFrom('watch_changes as wc')
          .crossJoin('destination_kinds as dk')
          .where('dk.kind', '=', WATCH_CHANGE_KIND)
          .where('wc.id', 'in', chunk)
          .select((s) => [
            'dk.destination',
            'wc.job_id',
            s.lit(0).as('revision'),
            'wc.id',
            ...pendingValues(s, nowIso),
          ]),
      )
      .execute();
  }
}

/**
 * The successor play carried out: for each departure it started (plays/play-store.ts), one contact search
 * at the company left, through the cycle's launcher (so paced with every other call to the service and
 * stored like any launch), admitted by the cycle's budget like a check (a RUNNING answer keeps its
 * reservation until its finished job says what it cost). The persons found are recorded as changes of
 * kind `successor` with their outbox events, once, in the transaction that marks the play done.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { isTerminalStatus, TERMINAL_STATUSES } from '../../contract/enums.js';
import { parseJsonText } from '../../contract/json.js';
import { StorageError } from '../../errors.js';
import type { Launcher } from '../../launch/create-launcher.js';
import { personsOf, totalUsdOf } from '../../launch/launch-budget.js';
import { launchRequest, stoppingReasonOf } from '../../launch/launch-call.js';
import { OPERATIONS } from '../../launch/launch-operations.js';
import type { Database } from '../../storage/database.js';
import { loadEnvelopeText } from '../../storage/envelope-codec.js';
import { recordChangeEvents } from '../../storage/job-store/record-outbox-events.js';
import type { CycleBudget } from '../cycle-budget.js';
import type { WatchDefinition } from '../load-watches.js';
import { logChanges } from '../settle-pending.js';
import type { WatchChange } from '../watch-store.js';
import { duePlays, movePlay, type PlayRow } from './play-store.js';
import {
  type Departure,
  departureOf,
  successorAfter,
  successorRequest,
  successorsOf,
} from './successor-search.js';

/** Due plays read at once. */
const BATCH = 20;

/** What the successor searches need from their cycle. */
export interface SuccessorContext {
  readonly watch: WatchDefinition;
  readonly cycle: number;
  readonly db: Kysely<Database>;
  readonly launcher: Launcher;
  readonly logger: Logger;
  readonly now: () => number;
  readonly budget: CycleBudget | undefined;
  /** Where the search's callback goes (HOOKSYNC_PUBLIC_URL + /webhooks), as a check's does. */
  readonly webhookUrl: string | undefined;
  /** Stops the cycle: the account out of quota, the key refused. */
  stop(reason: 'quota' | 'auth', message: string): void;
  /** A search's cost, in millionths of a dollar, once known. */
  spent(micros: number): void;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function jobOf(db: Kysely<Database>, jobId: string): Promise<unknown> {
  const text = await loadEnvelopeText(db, jobId);
  return text === undefined ? undefined : parseJsonText(text);
}

/**
 * Records what a finished successor search found, once: the play done (only if still claimed or running on
 * that job), the successors as changes with their events, the cycle's counts and spend.
 */
async function recordSuccessors(
  db: Kysely<Database>,
  input: {
    watch: WatchDefinition;
    play: PlayRow;
    change: WatchChange;
    departure: Departure;
    job: unknown;
    jobId: string;
    cycle: number;
    usdMicros: number;
    nowIso: string;
  },
): Promise<WatchChange[] | undefined> {
  const max = input.watch.plays.successor?.maxPerChange ?? 0;
  const successors = successorsOf(input.job, input.departure, max);
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('watch_plays')
      .set({
        state: 'done',
        job_id: input.jobId,
        cycle: input.cycle,
        usd_micros: input.usdMicros,
        detail: `${successors.length} found`,
        updated_at: input.nowIso,
      })
      .where('id', '=', Number(input.play.id))
      .where('state', 'in', ['claimed', 'running'])
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) return undefined;
    let changes: WatchChange[] = [];
    if (successors.length > 0) {
      changes = await trx
        .insertInto('watch_changes')
        .values(
          successors.map((successor) => ({
            watch: input.watch.name,
            row_key: input.change.row_key,
            cycle: input.cycle,
            change: 'successor',
            change_key: `successor:${successor.id}`,
            // The successor is not the departed's record: a CRM creates or finds them by their own keys.
            custom_fields: '{}',
            before: null,
            after: JSON.stringify(successorAfter(successor, input.departure)),
            detected_at: input.nowIso,
            job_id: input.jobId,
          })),
        )
        .onConflict((oc) => oc.columns(['watch', 'row_key', 'cycle', 'change_key']).doNothing())
        .returningAll()
        .execute();
      await recordChangeEvents(
        trx,
        changes.map((change) => change.id),
        input.nowIso,
      );
    }
    await trx
      .updateTable('watch_cycles')
      .set((eb) => ({
        changes: eb('changes', '+', changes.length),
        usd_micros: eb('usd_micros', '+', input.usdMicros),
        updated_at: input.nowIso,
      }))
      .where('watch', '=', input.watch.name)
      .where('cycle', '=', input.cycle)
      .execute();
    return changes;
  });
}

/**
 * Launches the due successor searches of the watch that the budget admits (at most `limit`); `blocked` when
 * the budget could not admit the next one now (it waits for room, or for the next cycle).
 */
export async function runSuccessorSearches(
  ctx: SuccessorContext,
  limit = BATCH,
): Promise<{ readonly started: number; readonly blocked: boolean }> {
  const { watch, db, logger } = ctx;
  const play = watch.plays.successor;
  if (play === undefined) return { started: 0, blocked: false };
  const nowIso = (): string => new Date(ctx.now()).toISOString();
  let started = 0;
  for (const due of await duePlays(db, watch.name, 'successor', nowIso(), limit)) {
    const departure = departureOf(due.change, await jobOf(db, due.change.job_id));
    const built = successorRequest(departure, play);
    if ('problem' in built) {
      await movePlay(db, due.play.id, 'pending', 'failed', { detail: built.problem, updated_at: nowIso() });
      logger.warn(
        { watch: watch.name, change_id: due.change.id, reason: built.problem },
        'successor search not made',
      );
      continue;
    }
    const units = Number(built.request.page_size);
    const reservation = ctx.budget?.tryReserveFor('search', units);
    if (ctx.budget !== undefined && reservation === undefined) return { started, blocked: true };
    // Claimed before it is sent: one search per departure, even when its answer is lost.
    const claimed = await movePlay(db, due.play.id, 'pending', 'claimed', {
      cycle: ctx.cycle,
      attempts: due.play.attempts + 1,
      updated_at: nowIso(),
    });
    if (!claimed) {
      reservation?.release();
      continue;
    }
    let result: Awaited<ReturnType<typeof launchRequest>>;
    try {
      const request =
        ctx.webhookUrl === undefined ? built.request : { ...built.request, webhook_url: ctx.webhookUrl };
      result = await launchRequest(ctx.launcher, OPERATIONS.search, request);
    } catch (error) {
      reservation?.release();
      if (error instanceof StorageError) throw error;
      const reason = stoppingReasonOf(error);
      const code = (error as { code?: string }).code ?? 'error';
      if (reason !== undefined) {
        // Nothing was bought: the search waits for the next cycle.
        await movePlay(db, due.play.id, 'claimed', 'pending', { updated_at: nowIso() });
        ctx.stop(
          reason,
          reason === 'quota'
            ? `watch "${watch.name}": the account is out of quota (${code}); paused until the next cycle`
            : `watch "${watch.name}": the service refused the key in HOOKSYNC_API_KEY (${code}); paused until the next cycle`,
        );
        return { started, blocked: false };
      }
      await movePlay(db, due.play.id, 'claimed', 'failed', {
        detail: describe(error).slice(0, 500),
        updated_at: nowIso(),
      });
      logger.warn(
        { watch: watch.name, change_id: due.change.id, err: describe(error) },
        'successor search failed',
      );
      continue;
    }
    started += 1;
    const job = result.response.job;
    const total = totalUsdOf(job);
    const pending = !isTerminalStatus(result.status);
    if (reservation !== undefined) {
      if (typeof total === 'number') reservation.settle(total, personsOf(job) ?? 0);
      else if (pending && ctx.budget !== undefined) ctx.budget.hold(result.job_id, reservation);
      else reservation.hold();
    }
    if (pending) {
      await movePlay(db, due.play.id, 'claimed', 'running', { job_id: result.job_id, updated_at: nowIso() });
      continue;
    }
    const usdMicros = typeof total === 'number' ? Math.round(total * 1e6) : 0;
    ctx.spent(usdMicros);
    const changes = await recordSuccessors(db, {
      watch,
      play: due.play,
      change: due.change,
      departure,
      job,
      jobId: result.job_id,
      cycle: ctx.cycle,
      usdMicros,
      nowIso: nowIso(),
    });
    if (changes !== undefined) logChanges(logger, watch.name, changes);
  }
  return { started, blocked: false };
}

/** A successor search settled now: its job, the cycle that paid, its cost when it said one. */
export interface SettledSearch {
  readonly jobId: string;
  readonly cycle: number;
  readonly totalUsd: number | undefined;
  readonly units: number;
}

/** Records the successor searches of the watch whose RUNNING answer's finished job is now stored. */
export async function settleSuccessorSearches(
  db: Kysely<Database>,
  watch: WatchDefinition,
  options: { readonly nowIso: string; readonly logger: Logger },
): Promise<SettledSearch[]> {
  const settled: SettledSearch[] = [];
  const rows = await db
    .selectFrom('watch_plays as p')
    .innerJoin('jobs as j', 'j.job_id', 'p.job_id')
    .innerJoin('watch_changes as c', 'c.id', 'p.change_id')
    .select(['p.id', 'p.job_id', 'p.cycle'])
    .where('p.watch', '=', watch.name)
    .where('p.play', '=', 'successor')
    .where('p.state', '=', 'running')
    .where('j.status', 'in', [...TERMINAL_STATUSES])
    .limit(100)
    .execute();
  for (const row of rows) {
    const due = await db
      .selectFrom('watch_plays')
      .selectAll()
      .where('id', '=', Number(row.id))
      .executeTakeFirst();
    const change = await db
      .selectFrom('watch_changes')
      .selectAll()
      .where('id', '=', Number(due?.change_id ?? -1))
      .executeTakeFirst();
    if (due === undefined || change === undefined || row.job_id === null) continue;
    const job = await jobOf(db, row.job_id);
    const departure = departureOf(change, await jobOf(db, change.job_id));
    const total = totalUsdOf(job);
    const totalUsd = typeof total === 'number' ? total : undefined;
    const cycle = row.cycle ?? change.cycle;
    const changes = await recordSuccessors(db, {
      watch,
      play: due,
      change,
      departure,
      job,
      jobId: row.job_id,
      cycle,
      usdMicros: totalUsd === undefined ? 0 : Math.round(totalUsd * 1e6),
      nowIso: options.nowIso,
    });
    if (changes === undefined) continue;
    logChanges(options.logger, watch.name, changes);
    settled.push({ jobId: row.job_id, cycle, totalUsd, units: personsOf(job) ?? 0 });
  }
  return settled;
}

/** The RUNNING successor searches of `watch` paid by `cycle`: reserved again when a cycle is taken up. */
export async function runningSearchesIn(
  db: Kysely<Database>,
  watch: string,
  cycle: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('watch_plays')
    .select('job_id')
    .where('watch', '=', watch)
    .where('play', '=', 'successor')
    .where('state', '=', 'running')
    .where('cycle', '=', cycle)
    .execute();
  return rows.flatMap((row) => (row.job_id === null ? [] : [row.job_id]));
}

/**
 * One pass of a cycle over its source, read once: the rows not checked in the cycle yet, a few in flight at
 * once, spread evenly over what is left of the period (with R rows left and T left of the period, the next
 * check is T/(R+1) after this one; R from what the cycle expects, as the pass cannot know before it has read)
 * or at once, each admitted by the cycle's budget before it is sent. The pass counts what it reads.
 */

import type { Kysely } from 'kysely';
import type { AnswerLimits } from '../client/answer-budget.js';
import type { RequestPlan } from '../launch/build-request.js';
import type { Reservation } from '../launch/spend-budget.js';
import type { Database } from '../storage/database.js';
import type { BuiltRow } from './check-row.js';
import type { CycleBudget } from './cycle-budget.js';
import type { WatchDefinition } from './load-watches.js';
import { PENDING_CHECK_INTERVAL_MS } from './settle-pending.js';
import { WatchSourceError } from './sources/crm-source.js';
import type { WatchClock } from './watch-clock.js';
import { keysCheckedIn } from './watch-store.js';
import { batches, SourceTally, watchedRows } from './watched-rows.js';

/** What a pass needs from its cycle. */
export interface PassContext {
  readonly watch: WatchDefinition;
  readonly cycle: number;
  readonly db: Kysely<Database>;
  readonly clock: WatchClock;
  readonly plan: RequestPlan;
  readonly concurrency: number;
  /** Spread the checks over what is left of the period; false: as fast as the rate allows. */
  readonly spread: boolean;
  readonly endsAtMs: number;
  /** Aborted when the cycle stops or a check fails: no check starts after it. */
  readonly halt: AbortController;
  readonly budget: CycleBudget | undefined;
  /** serve's answer budget and cap, for a CRM source's pages; none: the CRM client's own cap. */
  readonly answers?: AnswerLimits | undefined;
  stopped(): boolean;
  /** Nothing more fits in the budget: the cycle is paused until the next one. */
  stopForBudget(): void;
  /** The source failed while it was read (a CRM that refuses or cannot be reached): the cycle is paused. */
  stopForSource(error: WatchSourceError): void;
  /** Settles pending checks whose finished job is stored (forced: whatever the interval); true if any was. */
  settle(force: boolean): Promise<boolean>;
  /** Carries out the plays that changes started meanwhile (successor searches, CRM tasks). */
  plays?(): Promise<void>;
  check(row: BuiltRow, reservation: Reservation | undefined): Promise<void>;
  /** `expected`: the rows the pass expected to check (undefined: not known); `read`: valid rows read so far. */
  progress(done: number, expected: number | undefined, read: number): void;
}

/**
 * What a pass did: checks started, rows folded into a check of the same key (duplicates in the source), and
 * what it read of the source (`complete`: all of it, so the tally is the source's count).
 */
export interface PassResult {
  readonly started: number;
  readonly folded: number;
  readonly tally: SourceTally;
  readonly complete: boolean;
}

/**
 * Checks the rows of the source not yet checked in the cycle. A key is checked once (issue 43): a row whose
 * key was recorded, is in flight, or came earlier in the same batch is folded into that check, not paid for
 * again.
 */
export async function runPass(ctx: PassContext, expected: number | undefined): Promise<PassResult> {
  const { clock, budget } = ctx;
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  let started = 0;
  let folded = 0;
  let remaining = expected ?? 0;
  let complete = false;
  const tally = new SourceTally();
  // Keys of the checks started but not known recorded at the last look at the database, and those since ended:
  // bounded by the concurrency and a batch, not by the source.
  const unrecorded = new Set<string>();
  const ended: string[] = [];
  let nextAt = clock.now();

  /** The row's reservation (undefined without a budget); null when the cycle stops instead. */
  const admit = async (row: BuiltRow): Promise<Reservation | undefined | null> => {
    if (budget === undefined) return undefined;
    while (!ctx.stopped()) {
      const reservation = budget.tryReserve(row.request);
      if (reservation !== undefined) return reservation;
      // A RUNNING check's finished job may have said a price lower than its reservation.
      if (await ctx.settle(inFlight.size === 0)) continue;
      if (inFlight.size > 0) {
        await Promise.race(inFlight);
        continue;
      }
      // Spread over the period, there is time to wait for the held checks' finished jobs.
      const leftMs = ctx.endsAtMs - clock.now();
      if (budget.held > 0 && ctx.spread && leftMs > 0) {
        if (!(await clock.sleep(Math.min(PENDING_CHECK_INTERVAL_MS, leftMs), ctx.halt.signal))) return null;
        continue;
      }
      ctx.stopForBudget();
    }
    return null;
  };

  const source = watchedRows(ctx.watch, ctx.plan, ctx.db, ctx.answers);
  try {
    for await (const batch of batches(source, tally)) {
      if (ctx.stopped()) break;
      const keys = batch.map((row) => row.key);
      // Checks that ended before this look are in the database (a check records before it ends).
      for (const key of ended.splice(0)) unrecorded.delete(key);
      const done = await keysCheckedIn(ctx.db, ctx.watch.name, ctx.cycle, keys);
      for (const row of batch) {
        if (ctx.stopped() || failure !== undefined) break;
        if (done.has(row.key)) {
          // Checked in an earlier pass or run: the pending count already left it out, unless it repeats.
          continue;
        }
        if (unrecorded.has(row.key)) {
          folded += 1;
          continue;
        }
        if (ctx.spread && nextAt > clock.now()) {
          if (!(await clock.sleep(nextAt - clock.now(), ctx.halt.signal))) break;
        }
        while (inFlight.size >= ctx.concurrency) await Promise.race(inFlight);
        await ctx.settle(false);
        await ctx.plays?.();
        const reservation = await admit(row);
        if (reservation === null || ctx.stopped()) {
          reservation?.release();
          break;
        }
        const running: Promise<void> = ctx
          .check(row, reservation)
          .catch((error: unknown) => {
            failure ??= error;
            ctx.halt.abort();
          })
          .finally(() => {
            ended.push(row.key);
            inFlight.delete(running);
            ctx.progress(started - inFlight.size, expected, tally.valid);
          });
        inFlight.add(running);
        unrecorded.add(row.key);
        started += 1;
        remaining = Math.max(0, remaining - 1);
        if (ctx.spread) {
          const now = clock.now();
          nextAt = now + Math.max(0, ctx.endsAtMs - now) / (remaining + 1);
        }
      }
      if (failure !== undefined) break;
    }
    // The pass stops reading only when the cycle stops (the halt is aborted by a stop or a failure).
    complete = !ctx.stopped() && failure === undefined;
  } catch (error) {
    // A CRM that fails between two readings stops the cycle as a failed reading does (run-cycle.ts).
    if (!(error instanceof WatchSourceError)) throw error;
    ctx.stopForSource(error);
  } finally {
    await Promise.allSettled(inFlight);
    await source.return(undefined);
  }
  if (failure !== undefined) throw failure;
  return { started, folded, tally, complete };
}

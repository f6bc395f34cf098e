/**
 * Taking a watch's cycle up before a run of it checks anything: what an earlier run left claimed is reclaimed
 * (a task play) or reported abandoned (a successor search), pending checks whose finished job is stored
 * meanwhile are settled, and the run's budget is drawn up from what the cycle spent and still owes.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { unitsOf } from '../launch/launch-budget.js';
import type { Database } from '../storage/database.js';
import { CycleBudget } from './cycle-budget.js';
import type { WatchDefinition } from './load-watches.js';
import { reportAbandonedSearches } from './plays/abandon-successor-searches.js';
import { hasPlays } from './plays/play-store.js';
import { runningSearchesIn, settleSuccessorSearches } from './plays/run-successors.js';
import { reclaimTaskPlays } from './plays/run-tasks.js';
import { hasPendingChecks, pendingChecksIn } from './record-check.js';
import { settlePendingChecks } from './settle-pending.js';
import { getCycle, type WatchCycle } from './watch-store.js';

/** Whether `watch` has checks (or successor searches) whose finished job is still awaited. */
export async function hasPendingWork(db: Kysely<Database>, watch: WatchDefinition): Promise<boolean> {
  return (
    (await hasPendingChecks(db, watch.name)) ||
    (watch.plays.successor !== undefined && (await hasPlays(db, watch.name, ['running'], 'successor')))
  );
}

/** The budget of this run of the cycle: what earlier runs spent counts, what they left pending is owed. */
async function openBudget(
  db: Kysely<Database>,
  watch: WatchDefinition,
  cycle: WatchCycle,
): Promise<CycleBudget | undefined> {
  if (watch.maxUsdPerCycle === undefined) return undefined;
  const budget = new CycleBudget(
    Math.max(0, watch.maxUsdPerCycle - Number(cycle.usd_micros) / 1e6),
    watch.operation.name,
  );
  const owed = await pendingChecksIn(db, watch.name, cycle.cycle);
  const set = Object.fromEntries(watch.entries.set ?? []) as Record<string, unknown>;
  budget.owe(
    owed.map((check) => check.jobId),
    unitsOf(watch.operation.name, set),
  );
  if (watch.plays.successor !== undefined) {
    budget.owe(
      await runningSearchesIn(db, watch.name, cycle.cycle),
      watch.plays.successor.maxPerChange + 1,
      'search',
    );
  }
  return budget;
}

/** A cycle taken up: its row as stored now, the run's budget, and whether anything is still pending. */
export interface TakenCycle {
  readonly cycle: WatchCycle;
  readonly budget: CycleBudget | undefined;
  readonly pending: boolean;
}

/** Takes `begun` up for a run that holds the watch's lease (see the module comment). */
export async function takeCycleUp(
  watch: WatchDefinition,
  begun: WatchCycle,
  db: Kysely<Database>,
  logger: Logger,
  nowIso: string,
): Promise<TakenCycle> {
  // A run that died while it made a task leaves it claimed: this run (holding the lease) looks for it first.
  if (watch.plays.task !== undefined) await reclaimTaskPlays(db, watch.name, nowIso);
  // A search such a run claimed is never sent again: reported failed (abandoned) instead of claimed forever.
  await reportAbandonedSearches(db, watch, nowIso, logger);
  // What finished meanwhile counts before the budget is drawn up.
  if (await hasPendingWork(db, watch)) {
    await settlePendingChecks(db, watch, { nowIso, logger });
    if (watch.plays.successor !== undefined) await settleSuccessorSearches(db, watch, { nowIso, logger });
  }
  const cycle = (await getCycle(db, watch.name, begun.cycle)) ?? begun;
  return { cycle, budget: await openBudget(db, watch, cycle), pending: await hasPendingWork(db, watch) };
}

/**
 * The watches inside `serve`: one loop per watch, under a lease of its own (`watch:<name>`, as reconcile
 * runs under one), so that one replica at a time runs it; the others wait and take over when it stops or
 * dies. Cycles follow each other every `every`, a cycle that overran its period being followed at once; in
 * between, the checks whose answer was RUNNING are settled as their finished jobs are stored.
 * close() stops starting checks, lets the ones in flight finish, and gives the leases up; an unfinished
 * cycle is taken up where it stood by whichever process runs the watch next.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../storage/database.js';
import { createLeaseHolderId } from '../storage/leases/acquire-lease.js';
import { holdLease } from '../storage/leases/hold-lease.js';
import type { WatchDefinition } from './load-watches.js';
import { reportAbandonedSearches } from './plays/abandon-successor-searches.js';
import { hasPlays } from './plays/play-store.js';
import { settleSuccessorSearches } from './plays/run-successors.js';
import { reclaimTaskPlays, runTaskPlays } from './plays/run-tasks.js';
import { hasPendingChecks } from './record-check.js';
import { type CycleDeps, runCycle } from './run-cycle.js';
import { PENDING_CHECK_INTERVAL_MS, settlePendingChecks } from './settle-pending.js';
import { SYSTEM_CLOCK } from './watch-clock.js';
import { beginCycle, latestCycle, type WatchCycle } from './watch-store.js';

/** How long a watch's lease lasts unless renewed (renewed every third): a dead holder blocks this long. */
export const WATCH_LEASE_TTL_MS = 15_000;
/** Wait after a cycle failed (the database was unreachable, say) before trying again. */
const RETRY_AFTER_FAILURE_MS = 30_000;

/** The lease a watch runs under. */
export function watchLeaseName(watch: string): string {
  return `watch:${watch}`;
}

/** The cycle to run now, or how long until the next one is due. */
export async function dueCycle(
  db: Kysely<Database>,
  watch: WatchDefinition,
  nowMs: number,
): Promise<{ cycle: WatchCycle } | { waitMs: number }> {
  const latest = await latestCycle(db, watch.name);
  if (latest !== undefined && latest.finished_at === null) return { cycle: latest };
  if (latest !== undefined) {
    const dueMs = Date.parse(latest.ends_at);
    if (nowMs < dueMs) return { waitMs: dueMs - nowMs };
  }
  const cycle = await beginCycle(db, {
    watch: watch.name,
    cycle: (latest?.cycle ?? 0) + 1,
    startedAt: new Date(nowMs).toISOString(),
    endsAt: new Date(nowMs + watch.everyMs).toISOString(),
  });
  return { cycle };
}

/** The cycle `watches run` runs now: the unfinished one, else a new one begun now, due or not. */
export async function cycleToRunNow(
  db: Kysely<Database>,
  watch: WatchDefinition,
  nowMs: number,
): Promise<WatchCycle> {
  const latest = await latestCycle(db, watch.name);
  if (latest !== undefined && latest.finished_at === null) return latest;
  return beginCycle(db, {
    watch: watch.name,
    cycle: (latest?.cycle ?? 0) + 1,
    startedAt: new Date(nowMs).toISOString(),
    endsAt: new Date(nowMs + watch.everyMs).toISOString(),
  });
}

/** What the watches need beside a cycle's collaborators. */
export interface StartWatchesOptions extends CycleDeps {
  readonly watches: readonly WatchDefinition[];
  /** Lease polling while another replica runs a watch (default 2 s). */
  readonly leasePollMs?: number | undefined;
  readonly leaseTtlMs?: number | undefined;
}

/** The running watches. */
export interface RunningWatches {
  close(): Promise<void>;
}

/** Starts every watch's loop; resolves at once. */
export function startWatches(options: StartWatchesOptions): RunningWatches {
  const { db, logger } = options;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const closing = new AbortController();
  const holder = createLeaseHolderId();

  const loop = async (watch: WatchDefinition, log: Logger): Promise<void> => {
    while (!closing.signal.aborted) {
      const held = await holdLease(
        db,
        { name: watchLeaseName(watch.name), holder, ttlMs: options.leaseTtlMs ?? WATCH_LEASE_TTL_MS },
        { now: Date.now, logger: log, wait: true, pollMs: options.leasePollMs, signal: closing.signal },
      );
      if ('reason' in held) return;
      log.info('watch running here');
      // Tasks a dead holder claimed are looked for before they are made again (plays/run-tasks.ts).
      if (watch.plays.task !== undefined) {
        await reclaimTaskPlays(db, watch.name, new Date(clock.now()).toISOString());
      }
      // A successor search a dead holder claimed is reported abandoned, never searched again.
      await reportAbandonedSearches(db, watch, new Date(clock.now()).toISOString(), log);
      const signal = AbortSignal.any([closing.signal, held.lost]);
      try {
        while (!signal.aborted) {
          const next = await dueCycle(db, watch, clock.now());
          if ('waitMs' in next) {
            // Between cycles, the RUNNING checks of the last one are settled as their finished jobs arrive.
            const pending =
              (await hasPendingChecks(db, watch.name)) ||
              (await hasPlays(db, watch.name, ['pending', 'running']));
            if (pending) {
              const nowIso = new Date(clock.now()).toISOString();
              await settlePendingChecks(db, watch, { nowIso, logger: log });
              // Plays go on between cycles: searches settle, tasks are made (a search waits for a cycle's budget).
              if (watch.plays.successor !== undefined) {
                await settleSuccessorSearches(db, watch, { nowIso, logger: log });
              }
              await runTaskPlays(
                { watch, db, logger: log, now: clock.now, fetch: options.fetch, answers: options.answers },
                signal,
              );
            }
            await clock.sleep(
              pending ? Math.min(next.waitMs, PENDING_CHECK_INTERVAL_MS) : next.waitMs,
              signal,
            );
            continue;
          }
          const summary = await runCycle(watch, next.cycle, options, { spread: true, signal });
          if (summary.finished) log.info({ ...summary }, 'watch cycle finished');
        }
      } catch (error) {
        log.error({ err: error }, 'watch cycle failed; trying again shortly');
        await clock.sleep(RETRY_AFTER_FAILURE_MS, closing.signal);
      } finally {
        await held.release();
      }
    }
  };

  const loops = options.watches.map((watch) => loop(watch, logger.child({ watch: watch.name })));
  if (options.watches.length > 0) {
    logger.info({ watches: options.watches.map((w) => w.name) }, 'watches started');
  }
  return {
    async close() {
      closing.abort();
      await Promise.allSettled(loops);
    },
  };
}

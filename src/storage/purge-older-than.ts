/**
 * `purge --older-than`: retention. Deletes, in one transaction, the jobs stored (received_at) before the
 * cutoff with their normalized rows, the jti records, quarantined bodies and finished ledger entries from
 * before it, and the delivery counts of hours that ended before it. A dry run counts the same rows.
 */
import type { Kysely } from 'kysely';
import { DEFAULT_TOLERANCE_SECONDS } from '../contract/limits.js';
import { classifyStorageError } from './classify-storage-error.js';
import type { Database } from './database.js';
import { epochSeconds } from './job-store/jti-key.js';
import { createEmptyPurgeCounts, type PurgeReport, type PurgeTable } from './purge-report.js';

/** Knobs of {@link purgeOlderThan}. */
export interface PurgeOlderThanOptions {
  /** Rows stored more than this many ms before now are purged (0 purges everything up to now). */
  readonly olderThanMs: number;
  /** Count, delete nothing (default false). */
  readonly dryRun?: boolean;
  /** Clock in epoch ms (default Date.now). */
  readonly now?: () => number;
}

const HOUR_MS = 3_600_000;

/** The instants the conditions compare with, as the ISO 8601 UTC text the columns hold. */
interface PurgeWindow {
  readonly cutoffIso: string;
  /** The cutoff as the epoch seconds deliveries.received_at_s holds. */
  readonly cutoffS: number;
  /** A token that expired before this instant (epoch seconds) can no longer verify, even with the clock tolerance. */
  readonly deadTokenS: number;
  /** delivery_stats rows are hour starts: an hour at or before this one ended by the cutoff. */
  readonly lastWholeHourIso: string;
}

/** The tables keyed by job_id whose rows are derived from a job's envelope. */
const NORMALIZED_TABLES = ['persons', 'companies', 'job_changes'] as const;

type Count = (db: Kysely<Database>, window: PurgeWindow) => Promise<number>;

function oldJobIds(db: Kysely<Database>, window: PurgeWindow) {
  return db.selectFrom('jobs').select('jobs.job_id').where('jobs.received_at', '<', window.cutoffIso);
}

/** Each table's rows to purge: how to count them and how to delete them, with the same condition. */
const STEPS: ReadonlyArray<{ table: PurgeTable; count: Count; remove: Count }> = [
  // Derived rows go before their jobs: their condition reads the jobs table.
  ...NORMALIZED_TABLES.map((table) => ({
    table,
    // The three tables share the job_id column; Kysely cannot type a union of table names, hence the cast.
    count: (db: Kysely<Database>, w: PurgeWindow) =>
      countRows(
        db
          .selectFrom(table as 'persons')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('job_id', 'in', oldJobIds(db, w)),
      ),
    remove: (db: Kysely<Database>, w: PurgeWindow) =>
      deletedRows(
        db
          .deleteFrom(table as 'persons')
          .where('job_id', 'in', oldJobIds(db, w))
          .executeTakeFirst(),
      ),
  })),
  {
    table: 'jobs',
    count: (db, w) =>
      countRows(
        db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('received_at', '<', w.cutoffIso),
      ),
    remove: async (db, w) => {
      // Bookkeeping, not counted: a deleted job has nothing left to normalize.
      await db.deleteFrom('normalization_queue').where('job_id', 'in', oldJobIds(db, w)).execute();
      await db.deleteFrom('kept_mentions').where('job_id', 'in', oldJobIds(db, w)).execute();
      await db.deleteFrom('person_texts').where('job_id', 'in', oldJobIds(db, w)).execute();
      return deletedRows(db.deleteFrom('jobs').where('received_at', '<', w.cutoffIso).executeTakeFirst());
    },
  },
  {
    // A token that can still verify keeps its jti row, or a replay of it could store the job again (the
    // receiver drops the rest on its own schedule, with the same tolerance).
    table: 'deliveries',
    count: (db, w) =>
      countRows(
        db
          .selectFrom('deliveries')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('received_at_s', '<', w.cutoffS)
          .where('expires_at_s', '<', w.deadTokenS),
      ),
    remove: (db, w) =>
      deletedRows(
        db
          .deleteFrom('deliveries')
          .where('received_at_s', '<', w.cutoffS)
          .where('expires_at_s', '<', w.deadTokenS)
          .executeTakeFirst(),
      ),
  },
  {
    table: 'quarantine',
    count: (db, w) =>
      countRows(
        db
          .selectFrom('quarantine')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('received_at', '<', w.cutoffIso),
      ),
    remove: (db, w) =>
      deletedRows(db.deleteFrom('quarantine').where('received_at', '<', w.cutoffIso).executeTakeFirst()),
  },
  {
    // Pending entries are still expected, however old: reconcile needs them.
    table: 'expected_jobs',
    count: (db, w) =>
      countRows(
        db
          .selectFrom('expected_jobs')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('state', '<>', 'pending')
          .where('updated_at', '<', w.cutoffIso),
      ),
    remove: (db, w) =>
      deletedRows(
        db
          .deleteFrom('expected_jobs')
          .where('state', '<>', 'pending')
          .where('updated_at', '<', w.cutoffIso)
          .executeTakeFirst(),
      ),
  },
  {
    // A launch record older than the cutoff is forgotten: the same row in a later file launches again.
    table: 'launch_rows',
    count: (db, w) =>
      countRows(
        db
          .selectFrom('launch_rows')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('updated_at', '<', w.cutoffIso),
      ),
    remove: (db, w) =>
      deletedRows(db.deleteFrom('launch_rows').where('updated_at', '<', w.cutoffIso).executeTakeFirst()),
  },
  {
    // A watch's change older than the cutoff goes (its row's memory stays: it is what the next cycle compares with).
    table: 'watch_changes',
    count: (db, w) =>
      countRows(
        db
          .selectFrom('watch_changes')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('detected_at', '<', w.cutoffIso),
      ),
    remove: (db, w) =>
      deletedRows(db.deleteFrom('watch_changes').where('detected_at', '<', w.cutoffIso).executeTakeFirst()),
  },
  {
    table: 'delivery_stats',
    count: (db, w) =>
      countRows(
        db
          .selectFrom('delivery_stats')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('hour', '<=', w.lastWholeHourIso),
      ),
    remove: (db, w) =>
      deletedRows(db.deleteFrom('delivery_stats').where('hour', '<=', w.lastWholeHourIso).executeTakeFirst()),
  },
];

async function countRows(query: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }): Promise<number> {
  // Postgres answers count(*) as a bigint string, SQLite as a number.
  return Number((await query.executeTakeFirstOrThrow()).n);
}

async function deletedRows(result: Promise<{ numDeletedRows: bigint }>): Promise<number> {
  return Number((await result).numDeletedRows);
}

/**
 * Purges what was stored more than `olderThanMs` ago, in one transaction (a dry run only counts).
 * Throws TypeError for a bad duration, StorageError when the database fails (nothing is deleted then).
 */
export async function purgeOlderThan(
  db: Kysely<Database>,
  options: PurgeOlderThanOptions,
): Promise<PurgeReport> {
  const { olderThanMs } = options;
  if (!Number.isSafeInteger(olderThanMs) || olderThanMs < 0) {
    throw new TypeError(`olderThanMs must be a non-negative integer, got ${String(olderThanMs)}`);
  }
  const nowMs = (options.now ?? Date.now)();
  const cutoffMs = nowMs - olderThanMs;
  const window: PurgeWindow = {
    cutoffIso: new Date(cutoffMs).toISOString(),
    cutoffS: epochSeconds(cutoffMs, 'down'),
    deadTokenS: epochSeconds(nowMs - DEFAULT_TOLERANCE_SECONDS * 1000, 'down'),
    lastWholeHourIso: new Date(Math.floor(cutoffMs / HOUR_MS) * HOUR_MS - HOUR_MS).toISOString(),
  };
  const dryRun = options.dryRun === true;
  const deleted = createEmptyPurgeCounts();
  const run = async (executor: Kysely<Database>): Promise<void> => {
    for (const step of STEPS) {
      deleted[step.table] = await (dryRun ? step.count : step.remove)(executor, window);
    }
  };
  try {
    // A dry run reads outside a transaction: on SQLite a transaction takes the write lock at BEGIN.
    if (dryRun) await run(db);
    else await db.transaction().execute(run);
  } catch (error) {
    throw classifyStorageError(error);
  }
  return { mode: 'older_than', dry_run: dryRun, cutoff: window.cutoffIso, deleted };
}

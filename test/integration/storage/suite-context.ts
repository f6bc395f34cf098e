/**
 * What the storage suite's test files share: one migrated database per dialect run, emptied before each
 * test, a fake clock, and job stores closed at the end.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import {
  type CommitLoopStore,
  createJobStore,
  type NormalizationMode,
} from '../../../src/storage/job-store/job-store.js';
import { migrateToLatest } from '../../../src/storage/migrate-to-latest.js';
import { type HooksyncDatabase, openDatabase } from '../../../src/storage/open-database.js';

/** A fresh, empty database of the dialect under test. */
export interface ProvisionedDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** How the suite gets databases. */
export interface StorageSuiteSetup {
  readonly dialect: 'sqlite' | 'postgres';
  provision(): Promise<ProvisionedDatabase>;
}

/** Every table the migrations create but delivery_stats. */
export const TABLES = [
  'jobs',
  'deliveries',
  'quarantine',
  'persons',
  'companies',
  'job_changes',
  'expected_jobs',
  'reconcile_runs',
  'leases',
  'export_cursors',
  'normalization_queue',
  'kept_mentions',
] as const;

/** The fake clock's time at the start of every test. */
export const START_MS = Date.UTC(2026, 2, 4, 10, 0, 0);

/** Handles for the tests (valid once beforeAll has run). */
export interface SuiteContext {
  readonly setup: StorageSuiteSetup;
  readonly database: HooksyncDatabase;
  readonly url: string;
  /** The fake clock: tests move `ms`. */
  readonly clock: { ms: number };
  readonly now: () => number;
  /** A job store on the suite's database and clock, closed after the suite. */
  newStore(maxBatch?: number, normalization?: NormalizationMode): CommitLoopStore;
  /** Rows of `table` (those of `jobId` when given). */
  count(table: (typeof TABLES)[number], jobId?: string): Promise<number>;
}

/** Registers the hooks and returns the context the suite files use. */
export function createSuiteContext(setup: StorageSuiteSetup): SuiteContext {
  let provisioned: ProvisionedDatabase | undefined;
  let database: HooksyncDatabase | undefined;
  const clock = { ms: START_MS };
  const now = () => clock.ms;
  const stores: CommitLoopStore[] = [];

  beforeAll(async () => {
    provisioned = await setup.provision();
    database = await openDatabase(provisioned.url);
    const report = await migrateToLatest(database);
    expect(report.error).toBeUndefined();
  });

  beforeEach(async () => {
    clock.ms = START_MS;
    for (const table of TABLES) await database!.db.deleteFrom(table).execute();
  });

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database?.close();
    await provisioned?.drop();
  });

  return {
    setup,
    get database() {
      return database!;
    },
    get url() {
      return provisioned!.url;
    },
    clock,
    now,
    newStore(maxBatch, normalization) {
      const store = createJobStore({
        database: database!,
        now,
        ...(maxBatch === undefined ? {} : { maxBatch }),
        ...(normalization === undefined ? {} : { normalization }),
      });
      stores.push(store);
      return store;
    },
    async count(table, jobId) {
      let query = database!.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
      if (jobId !== undefined) query = query.where(sql.ref('job_id'), '=', jobId);
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

/**
 * Reconcile runs against the simulator: a RUNNING job waits for a later run, an unknown job is
 * not_found, a run cancelled halfway resumes without fetching again what it has, and two runs started
 * together on separate connections (SQLite, Postgres) leave one holding the lease.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/client/create-client.js';
import { parseSearchContactRequest } from '../../../src/contract/requests.js';
import { createLauncher } from '../../../src/launch/create-launcher.js';
import {
  DEFAULT_CONCURRENCY,
  type ReconcileDeps,
  runReconcile,
} from '../../../src/reconcile/run-reconcile.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { listJobs } from '../../../src/storage/job-queries.js';
import { createJobStore, type JobStore } from '../../../src/storage/job-store/job-store.js';
import { recordExpectedJobs } from '../../../src/storage/ledger/record-expected-jobs.js';
import { type HooksyncDatabase, openDatabase } from '../../../src/storage/open-database.js';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { until } from '../../helpers/until.js';
import {
  createTempPostgres,
  createTempSqlite,
  type TempDatabase,
} from '../../unit/reconcile/helpers/temp-database.js';
import { createCountingFetch, type LaunchedJob, startSimulatorWithJobs } from './helpers/sim-jobs.js';

const FAST = { perInterval: 1000, intervalSeconds: 1 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(sim: Simulator, create: () => Promise<TempDatabase> = createTempSqlite) {
  const temp = await create();
  const store = createJobStore({ database: temp.database });
  cleanups.push(
    () => temp.cleanup(),
    () => store.close(),
  );
  const counting = createCountingFetch();
  const client = createClient({
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    fetch: counting.fetch,
    rateLimit: FAST,
  });
  const deps: ReconcileDeps = { db: temp.database.db, client, store };
  return { temp, store, counting, client, deps };
}

async function track(
  db: TempDatabase['database']['db'],
  jobs: readonly { job_id: string; kind: LaunchedJob['kind'] }[],
) {
  await recordExpectedJobs(db, jobs, 'track', new Date());
}

describe('a job still RUNNING', () => {
  it('stays pending, unstored, and is fetched by the run after it finishes', async () => {
    const sim = await createSimulator({ seed: 'running', asyncMs: 1200, rate: FAST });
    cleanups.push(() => sim.close());
    const { temp, store, client, deps, counting } = await setUp(sim);
    const launcher = createLauncher({ client, store, db: temp.database.db });
    const launched = await launcher.searchContact(
      parseSearchContactRequest({ domain: 'acme.com', page_size: 3 }),
    );
    expect(launched).toMatchObject({ status: 'RUNNING', expected: true, stored: undefined });
    const entry = () =>
      temp.database.db
        .selectFrom('expected_jobs')
        .selectAll()
        .where('job_id', '=', launched.job_id)
        .executeTakeFirstOrThrow();
    expect(await entry()).toMatchObject({ state: 'pending', origin: 'launch', kind: 'search_contact' });

    const first = await runReconcile(deps, { olderThanMs: 0 });
    expect(first).toMatchObject({
      status: 'completed',
      fetched: 1,
      running: 1,
      still_pending: 1,
      recovered: 0,
    });
    expect(await entry()).toMatchObject({ state: 'pending', attempts: 0, next_attempt_at: null });
    expect(await temp.database.db.selectFrom('jobs').selectAll().execute()).toEqual([]);

    await until(() => sim.jobs()[0]?.status === 'SUCCEEDED', { message: 'the job has finished' });
    const second = await runReconcile(deps, { olderThanMs: 0 });
    expect(second).toMatchObject({
      status: 'completed',
      fetched: 1,
      recovered: 1,
      running: 0,
      still_pending: 0,
    });
    expect((await entry()).state).toBe('received');
    const [stored] = await listJobs(temp.database.db);
    if (stored === undefined) throw new Error('no job stored');
    expect(stored).toMatchObject({ job_id: launched.job_id, status: 'SUCCEEDED', source: 'finder' });
    expect(stored.envelope).toBe(sim.jobText(launched.job_id));
    expect(counting.hits(launched.job_id)).toBe(2);
  });
});

describe('a job the service does not know', () => {
  it('is marked not_found', async () => {
    const sim = await createSimulator({ seed: 'unknown', rate: FAST });
    cleanups.push(() => sim.close());
    const { temp, deps } = await setUp(sim);
    const id = randomUUID();
    await track(temp.database.db, [{ job_id: id, kind: 'job_change' }]);
    const report = await runReconcile(deps, { olderThanMs: 0 });
    expect(report).toMatchObject({ status: 'completed', not_found: 1, fetched: 0 });
    const entry = await temp.database.db.selectFrom('expected_jobs').selectAll().executeTakeFirstOrThrow();
    expect(entry).toMatchObject({
      state: 'not_found',
      last_error: expect.stringContaining('NOT_FOUND_JOB_NOT_FOUND'),
    });
  });
});

describe('a run stopped halfway', () => {
  it('resumes without fetching again what it already has (cancelled mid-flight, then by --limit)', async () => {
    const seeded = await startSimulatorWithJobs(24, { rate: { perInterval: 8, intervalSeconds: 1 } });
    cleanups.push(() => seeded.close());
    const { temp, deps, counting } = await setUp(seeded.sim);
    await track(temp.database.db, seeded.jobs);
    const received = async () =>
      new Set(
        (
          await temp.database.db
            .selectFrom('expected_jobs')
            .select('job_id')
            .where('state', '=', 'received')
            .execute()
        ).map((r) => r.job_id),
      );

    const controller = new AbortController();
    const first = await runReconcile(
      {
        ...deps,
        signal: controller.signal,
        onProgress: (p) => p.done >= 10 && controller.abort(new Error('killed')),
      },
      { olderThanMs: 0 },
    );
    expect(first).toMatchObject({ status: 'aborted', error: 'killed' });
    const afterFirst = await received();
    expect(afterFirst.size).toBeGreaterThanOrEqual(10);
    expect(afterFirst.size).toBeLessThan(24);
    const hitsAfterFirst = counting.total();

    const second = await runReconcile(deps, { olderThanMs: 0, limit: 6 });
    expect(second).toMatchObject({ status: 'completed', fetched: 6 });
    const third = await runReconcile(deps, { olderThanMs: 0 });
    expect(third).toMatchObject({ status: 'completed', fetched: 24 - afterFirst.size - 6 });

    expect((await received()).size).toBe(24);
    // What the first run had stored was never asked for again.
    for (const id of afterFirst) expect(counting.hits(id)).toBe(1);
    // Only requests cancelled in flight (at most one per worker) can have been sent twice.
    expect(counting.total() - 24).toBeLessThanOrEqual(hitsAfterFirst - afterFirst.size);
    expect(hitsAfterFirst - afterFirst.size).toBeLessThanOrEqual(4);
  });
});

describe('a sub-key, which may not list keys', () => {
  it('runs at the rate the first rate-limit headers announce', async () => {
    const subKey = randomUUID();
    const seeded = await startSimulatorWithJobs(12, {
      rate: { perInterval: 50, intervalSeconds: 1 },
      subKeys: [{ apiKey: subKey, rate: { perInterval: 4, intervalSeconds: 1 } }],
    });
    cleanups.push(() => seeded.close());
    const temp = await createTempSqlite();
    const store = createJobStore({ database: temp.database });
    cleanups.push(
      () => temp.cleanup(),
      () => store.close(),
    );
    const counting = createCountingFetch();
    const client = createClient({
      baseUrl: seeded.sim.url,
      apiKey: subKey,
      fetch: counting.fetch,
      rateLimit: FAST,
    });
    await track(temp.database.db, seeded.jobs);
    const report = await runReconcile({ db: temp.database.db, client, store }, { olderThanMs: 0 });
    expect(report).toMatchObject({ status: 'completed', fetched: 12, recovered: 12 });
    // The key list is refused (master key needed); the first 429s teach the rate, and it holds after:
    // only the requests already in flight when the first 429 came (one per worker) can meet one.
    expect(report.pacing).toContainEqual({ perInterval: 4, intervalSeconds: 1 });
    expect(counting.rateLimited()).toBeGreaterThanOrEqual(1);
    expect(counting.rateLimited()).toBeLessThanOrEqual(DEFAULT_CONCURRENCY);
    expect(report.rate_limited).toBe(counting.rateLimited());
  });
});

function concurrentRunsSuite(create: () => Promise<TempDatabase>): void {
  it('leaves exactly one run holding the lease; the other names it and fetches nothing', async () => {
    const seeded = await startSimulatorWithJobs(12, { rate: { perInterval: 20, intervalSeconds: 1 } });
    cleanups.push(() => seeded.close());
    const { temp, deps, counting } = await setUp(seeded.sim, create);
    await track(temp.database.db, seeded.jobs);
    const second: HooksyncDatabase = await openDatabase(temp.url);
    cleanups.push(() => second.close());
    const otherStore: JobStore = createJobStore({ database: second });
    cleanups.push(() => otherStore.close());
    const reports = await Promise.all([
      runReconcile(deps, { olderThanMs: 0, holder: 'replica-a:1:aaaa' }),
      runReconcile(
        { ...deps, db: second.db, store: otherStore },
        { olderThanMs: 0, holder: 'replica-b:2:bbbb' },
      ),
    ]);
    const winner = reports.find((r) => r.status === 'completed');
    const loser = reports.find((r) => r.status === 'lease_held');
    expect(winner).toMatchObject({ fetched: 12, recovered: 12 });
    expect(loser).toMatchObject({ fetched: 0, lease: { holder: winner!.holder } });
    expect(counting.total()).toBe(12);
  });
}

describe('two runs at once on SQLite', () => {
  concurrentRunsSuite(createTempSqlite);
});

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('two runs at once on Postgres'), () => {
  concurrentRunsSuite(createTempPostgres);
});

/**
 * runReconcile against a stub service on a real socket, with the real client and job store over a real
 * SQLite file, and a fake clock for ages and backoff. The simulator-backed suite is in integration/.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/client/create-client.js';
import type { JobKind } from '../../../src/contract/enums.js';
import { listReconcileRuns } from '../../../src/reconcile/reconcile-history.js';
import { type ReconcileOptions, runReconcile } from '../../../src/reconcile/run-reconcile.js';
import { getJob } from '../../../src/storage/job-queries.js';
import { createJobStore, type JobStore } from '../../../src/storage/job-store/job-store.js';
import { acquireLease, RECONCILE_LEASE_NAME, readLease } from '../../../src/storage/leases/acquire-lease.js';
import { recordExpectedJobs } from '../../../src/storage/ledger/record-expected-jobs.js';
import { jsonReply } from '../../helpers/http-stub-server.js';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import {
  errorReply,
  type FinderScript,
  jobChangeText,
  type StubService,
  startStubService,
} from './helpers/stub-service.js';
import {
  clearTables,
  createTempPostgres,
  createTempSqlite,
  type TempDatabase,
} from './helpers/temp-database.js';

const T0 = Date.UTC(2026, 0, 5, 2, 0, 0);
const MIN = 60_000;
const KEY = '5f0e1d2c-3b4a-4596-8877-665544332211';

let temp: TempDatabase;
let store: JobStore;
let stub: StubService | undefined;
let clock: number;

async function track(kind: JobKind, count: number, at = T0): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  await recordExpectedJobs(
    temp.database.db,
    ids.map((job_id) => ({ job_id, kind })),
    'track',
    new Date(at),
  );
  return ids;
}

async function run(
  scripts: Record<string, FinderScript>,
  options: ReconcileOptions = {},
  extra: {
    apiKeys?: Parameters<typeof startStubService>[1];
    onRecovered?: (kind: JobKind) => void;
    signal?: AbortSignal;
  } = {},
) {
  stub ??= await startStubService(scripts, extra.apiKeys);
  const client = createClient({
    baseUrl: stub.url,
    apiKey: KEY,
    retries: 0,
    rateLimit: { perInterval: 1000, intervalSeconds: 1 },
  });
  return runReconcile(
    {
      db: temp.database.db,
      client,
      store,
      now: () => clock,
      ...(extra.onRecovered ? { onRecovered: extra.onRecovered } : {}),
      ...(extra.signal ? { signal: extra.signal } : {}),
    },
    options,
  );
}

function entry(jobId: string) {
  return temp.database.db
    .selectFrom('expected_jobs')
    .selectAll()
    .where('job_id', '=', jobId)
    .executeTakeFirstOrThrow();
}

function reconcileSuite(create: () => Promise<TempDatabase>): void {
  // One database per suite (creating a Postgres database per test would dominate the run time).
  beforeAll(async () => {
    temp = await create();
  });
  afterAll(async () => {
    await temp.cleanup();
  });
  beforeEach(async () => {
    await clearTables(temp.database);
    clock = T0 + 20 * MIN;
    store = createJobStore({ database: temp.database, now: () => clock });
  });
  afterEach(async () => {
    await store.close();
    await stub?.close();
    stub = undefined;
  });

  describe('runReconcile outcomes', () => {
    it('stores a finished job verbatim, closes its entry, counts it recovered and reports it', async () => {
      const [id] = await track('job_change', 1);
      const text = jobChangeText(id!);
      const recovered: JobKind[] = [];
      const report = await run(
        { [`job_change:${id}`]: { status: 200, body: text } },
        {},
        { onRecovered: (k) => recovered.push(k) },
      );
      expect(report).toMatchObject({
        status: 'completed',
        checked: 1,
        fetched: 1,
        recovered: 1,
        still_pending: 0,
      });
      expect(recovered).toEqual(['job_change']);
      expect((await entry(id!)).state).toBe('received');
      const job = await getJob(temp.database.db, id!);
      expect(job).toMatchObject({ envelope: text, source: 'finder', status: 'SUCCEEDED' });
    });

    it('leaves a RUNNING job pending, unstored, due again at once; fetches it when finished', async () => {
      const [id] = await track('job_change', 1);
      const script: FinderScript = (hit) => ({
        status: 200,
        body: jobChangeText(id!, hit === 1 ? 'RUNNING' : 'SUCCEEDED'),
      });
      const first = await run({ [id!]: script });
      expect(first).toMatchObject({
        status: 'completed',
        fetched: 1,
        running: 1,
        still_pending: 1,
        recovered: 0,
      });
      expect(await entry(id!)).toMatchObject({ state: 'pending', attempts: 0, next_attempt_at: null });
      expect(await temp.database.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
      const second = await run({});
      expect(second).toMatchObject({ fetched: 1, recovered: 1, running: 0 });
      expect((await entry(id!)).state).toBe('received');
      expect(stub!.hits(id!)).toBe(2);
    });

    it('marks an unknown job not_found', async () => {
      const [id] = await track('search_contact', 1);
      const report = await run({});
      expect(report).toMatchObject({ not_found: 1, fetched: 0 });
      expect(await entry(id!)).toMatchObject({
        state: 'not_found',
        last_error: expect.stringContaining('NOT_FOUND_JOB_NOT_FOUND'),
      });
    });

    it('tries both finders for a hint of unknown kind, and records the kind that answered', async () => {
      const [found, missing] = await track('unknown', 2);
      const report = await run({ [`search_contact:${found}`]: { status: 200, body: jobChangeText(found!) } });
      expect(report).toMatchObject({ fetched: 1, not_found: 1 });
      expect(await entry(found!)).toMatchObject({ state: 'received', kind: 'search_contact' });
      expect(await entry(missing!)).toMatchObject({
        state: 'not_found',
        last_error: expect.stringContaining('neither'),
      });
      expect(stub!.hits(missing!, 'job_change')).toBe(1);
      expect(stub!.hits(missing!, 'search_contact')).toBe(1);
    });

    it('backs off after a failure, skips the entry until then, and fails it after maxAttempts', async () => {
      const [id] = await track('job_change', 1);
      const options = { attempts: { maxAttempts: 3, retryBaseMs: MIN } };
      const down = errorReply(500, 'INTERNAL_UNCLASSIFIED_ERROR');
      const first = await run({ [id!]: down }, options);
      expect(first).toMatchObject({ status: 'completed', retrying: 1, still_pending: 1, failed: 0 });
      expect(await entry(id!)).toMatchObject({
        state: 'pending',
        attempts: 1,
        next_attempt_at: new Date(clock + MIN).toISOString(),
        last_error: expect.stringContaining('INTERNAL_UNCLASSIFIED_ERROR (HTTP 500)'),
      });
      expect((await run({}, options)).checked).toBe(0);
      clock += MIN;
      await run({}, options);
      expect(await entry(id!)).toMatchObject({
        attempts: 2,
        next_attempt_at: new Date(clock + 2 * MIN).toISOString(),
      });
      clock += 2 * MIN;
      const last = await run({}, options);
      expect(last).toMatchObject({ failed: 1, retrying: 0, still_pending: 0 });
      expect(await entry(id!)).toMatchObject({ state: 'failed', attempts: 3, next_attempt_at: null });
      expect(stub!.hits(id!)).toBe(3);
    });

    it('counts a malformed answer and an answer for another job as failed attempts', async () => {
      const [garbled, other] = await track('job_change', 2);
      const report = await run({
        [garbled!]: { status: 200, body: 'not json', headers: { 'content-type': 'application/json' } },
        [other!]: { status: 200, body: jobChangeText(randomUUID()) },
      });
      expect(report).toMatchObject({ retrying: 2, fetched: 0 });
      expect((await entry(garbled!)).last_error).toContain('RESPONSE_MALFORMED');
      expect((await entry(other!)).last_error).toContain('another job');
      expect(await temp.database.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
    });

    it.each([
      [402, 'QUOTA_ACCOUNT_OVER_QUOTA'],
      [403, 'AUTH_BAD_API_KEY'],
      [401, 'AUTH_MISSING_API_KEY'],
    ])('stops at once on %d %s, marks nothing, exits the run as stopped', async (status, code) => {
      const ids = await track('job_change', 6);
      const scripts = Object.fromEntries(ids.map((id) => [id, errorReply(status, code)]));
      const report = await run(scripts, { concurrency: 1 });
      expect(report).toMatchObject({ status: 'stopped', stop: { code, status }, fetched: 0, checked: 0 });
      for (const id of ids)
        expect(await entry(id)).toMatchObject({ state: 'pending', attempts: 0, last_error: null });
      expect(ids.reduce((sum, id) => sum + stub!.hits(id), 0)).toBe(1);
      const [history] = await listReconcileRuns(temp.database.db);
      expect(history).toMatchObject({ status: 'failed', report: { status: 'stopped', stop: { code } } });
    });

    it('stops before any finder call when the key list answers 403 AUTH_BAD_API_KEY', async () => {
      const [id] = await track('job_change', 1);
      const report = await run({}, {}, { apiKeys: errorReply(403, 'AUTH_BAD_API_KEY') });
      expect(report).toMatchObject({ status: 'stopped', stop: { code: 'AUTH_BAD_API_KEY' } });
      expect(stub!.hits(id!)).toBe(0);
    });

    it('learns the rate from the key list when the key is the master key', async () => {
      await track('job_change', 1);
      const apiKeys = jsonReply(200, {
        api_keys: [
          { api_key: KEY, active: true, notes: '', master: true, per_interval: 7, interval_seconds: 2 },
        ],
      });
      const report = await run({}, {}, { apiKeys });
      expect(report.pacing).toEqual([{ perInterval: 7, intervalSeconds: 2 }]);
    });
  });

  describe('runReconcile selection', () => {
    it('never fetches an entry whose job is already stored finished: a join closes it', async () => {
      const [id] = await track('job_change', 1);
      await store.store({ envelopeText: jobChangeText(id!), source: 'webhook' });
      // The store closed it; reopen it as if tracked after the callback came.
      await temp.database.db.updateTable('expected_jobs').set({ state: 'pending' }).execute();
      const report = await run({ [id!]: { status: 200, body: jobChangeText(id!) } });
      expect(report).toMatchObject({ already_received: 1, fetched: 0, checked: 1, recovered: 0 });
      expect(stub!.hits(id!)).toBe(0);
      expect((await entry(id!)).state).toBe('received');
    });

    it('leaves entries younger than the grace period, takes all with 0, and honours limit', async () => {
      const old = await track('job_change', 3, T0);
      const young = await track('job_change', 2, clock - MIN);
      expect((await run({}, { olderThanMs: 15 * MIN })).not_found).toBe(3);
      for (const id of young) expect((await entry(id)).state).toBe('pending');
      expect((await run({}, { olderThanMs: 0, limit: 1 })).not_found).toBe(1);
      expect((await run({}, { olderThanMs: 0 })).not_found).toBe(1);
      expect(old.every((id) => stub!.hits(id) === 1)).toBe(true);
    });

    it('counts Company Reveal entries as not fetchable, never asks, leaves them pending', async () => {
      const [reveal] = await track('company_reveal', 1);
      const report = await run({});
      expect(report).toMatchObject({ not_fetchable: 1, checked: 1, not_found: 0, requests: 0 });
      expect((await entry(reveal!)).state).toBe('pending');
    });

    it('dry run lists what it would fetch, sends and writes nothing', async () => {
      const ids = await track('job_change', 2);
      await track('company_reveal', 1);
      const report = await run({}, { dryRun: true });
      expect(report.status).toBe('dry_run');
      expect(report.would_fetch?.map((p) => p.job_id).sort()).toEqual([...ids].sort());
      expect(report.not_fetchable).toBe(1);
      expect(stub!.server.requests).toHaveLength(0);
      expect(await listReconcileRuns(temp.database.db)).toEqual([]);
      expect(await readLease(temp.database.db, RECONCILE_LEASE_NAME)).toBeUndefined();
    });
  });

  describe('runReconcile lease and history', () => {
    it('returns lease_held naming the holder when another run holds the lease, sending nothing', async () => {
      await track('job_change', 1);
      await acquireLease(temp.database.db, {
        name: RECONCILE_LEASE_NAME,
        holder: 'other:1:abcd',
        ttlMs: 60_000,
        nowMs: clock,
      });
      const report = await run({});
      expect(report).toMatchObject({
        status: 'lease_held',
        lease: { holder: 'other:1:abcd' },
        run_id: undefined,
      });
      expect(stub!.server.requests).toHaveLength(0);
    });

    it('with wait, runs once the other holder releases', async () => {
      await track('job_change', 1);
      await acquireLease(temp.database.db, {
        name: RECONCILE_LEASE_NAME,
        holder: 'other',
        ttlMs: 60_000,
        nowMs: clock,
      });
      setTimeout(() => {
        void temp.database.db.deleteFrom('leases').execute();
      }, 150);
      const report = await run({}, { wait: true, leasePollMs: 50 });
      expect(report).toMatchObject({ status: 'completed', not_found: 1 });
    });

    it('records each run, releases the lease, and marks runs that died mid-way aborted', async () => {
      await temp.database.db
        .insertInto('reconcile_runs')
        .values({
          id: 'dead',
          holder: 'gone:9:0000',
          started_at: new Date(T0).toISOString(),
          finished_at: null,
          status: 'running',
          report: null,
        })
        .execute();
      await track('job_change', 1);
      const report = await run({});
      const runs = await listReconcileRuns(temp.database.db);
      expect(runs.map((r) => [r.id, r.status])).toEqual([
        [report.run_id, 'completed'],
        ['dead', 'aborted'],
      ]);
      expect(runs[0]!.report).toMatchObject({ status: 'completed', not_found: 1, holder: report.holder });
      expect(await readLease(temp.database.db, RECONCILE_LEASE_NAME)).toBeUndefined();
    });

    it('stops as aborted when the lease is taken away, and when cancelled', async () => {
      const ids = await track('job_change', 2);
      const hang: FinderScript = () => 'hang';
      const scripts = Object.fromEntries(ids.map((id) => [id, hang]));
      const running = run(scripts, { leaseTtlMs: 300 });
      setTimeout(() => {
        void temp.database.db.updateTable('leases').set({ holder: 'intruder' }).execute();
      }, 150);
      expect(await running).toMatchObject({ status: 'aborted', error: 'the lease was lost to another run' });
      for (const id of ids) expect(await entry(id)).toMatchObject({ state: 'pending', attempts: 0 });

      await temp.database.db.deleteFrom('leases').execute();
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stop now')), 100);
      expect(await run({}, {}, { signal: controller.signal })).toMatchObject({
        status: 'aborted',
        error: 'stop now',
      });
      expect(await readLease(temp.database.db, RECONCILE_LEASE_NAME)).toBeUndefined();
    });
  });
}

describe('on SQLite', () => {
  reconcileSuite(createTempSqlite);
});

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('on Postgres'), () => {
  reconcileSuite(createTempPostgres);
});

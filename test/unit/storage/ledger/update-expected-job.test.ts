import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordExpectedJobs } from '../../../../src/storage/ledger/record-expected-jobs.js';
import {
  DEFAULT_ATTEMPT_POLICY,
  markNotFound,
  recordFailedAttempt,
  retryDelayMs,
} from '../../../../src/storage/ledger/update-expected-job.js';
import { createTempSqlite, type TempDatabase } from '../../reconcile/helpers/temp-database.js';

const A = '0b9c5f7e-1d2a-4c3b-8e4f-5a6b7c8d9e0f';
const T0 = Date.UTC(2026, 0, 1);

describe('retryDelayMs', () => {
  it('doubles from one minute and stops at six hours', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n))).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(retryDelayMs(9)).toBe(256 * 60_000);
    expect(retryDelayMs(10)).toBe(6 * 3_600_000);
    expect(retryDelayMs(10_000)).toBe(6 * 3_600_000);
    expect(() => retryDelayMs(0)).toThrow(TypeError);
  });
});

describe('ledger writes', () => {
  let temp: TempDatabase;
  beforeEach(async () => {
    temp = await createTempSqlite();
    await recordExpectedJobs(temp.database.db, [{ job_id: A, kind: 'job_change' }], 'track', new Date(T0));
  });
  afterEach(async () => {
    await temp.cleanup();
  });
  const entry = () => temp.database.db.selectFrom('expected_jobs').selectAll().executeTakeFirstOrThrow();

  it('counts failed attempts up to the policy, then fails the entry', async () => {
    const policy = { ...DEFAULT_ATTEMPT_POLICY, maxAttempts: 2 };
    expect(await recordFailedAttempt(temp.database.db, { job_id: A, attempts: 0 }, 'boom', T0, policy)).toBe(
      'retrying',
    );
    expect(await entry()).toMatchObject({ attempts: 1, state: 'pending', last_error: 'boom' });
    expect(
      await recordFailedAttempt(temp.database.db, { job_id: A, attempts: 1 }, 'boom again', T0, policy),
    ).toBe('failed');
    expect(await entry()).toMatchObject({
      attempts: 2,
      state: 'failed',
      next_attempt_at: null,
      last_error: 'boom again',
    });
  });

  it('never overwrites an entry a callback closed meanwhile, and clips long errors', async () => {
    await temp.database.db.updateTable('expected_jobs').set({ state: 'received' }).execute();
    await markNotFound(temp.database.db, A, 'gone', new Date(T0).toISOString());
    await recordFailedAttempt(temp.database.db, { job_id: A, attempts: 0 }, 'x', T0);
    expect(await entry()).toMatchObject({ state: 'received', attempts: 0, last_error: null });
    await temp.database.db.updateTable('expected_jobs').set({ state: 'pending' }).execute();
    await markNotFound(temp.database.db, A, 'y'.repeat(5000), new Date(T0).toISOString());
    expect((await entry()).last_error).toHaveLength(1000);
  });
});

describe('recordExpectedJobs', () => {
  let temp: TempDatabase;
  beforeEach(async () => {
    temp = await createTempSqlite();
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  it('records a long list whole, counting only new entries, and never touches existing ones', async () => {
    const ids = Array.from({ length: 1203 }, () => randomUUID());
    await recordExpectedJobs(
      temp.database.db,
      [{ job_id: ids[7]!, kind: 'search_contact' }],
      'hint',
      new Date(T0),
    );
    await temp.database.db.updateTable('expected_jobs').set({ state: 'received' }).execute();
    const jobs = ids.map((job_id) => ({ job_id, kind: 'job_change' as const }));
    expect(await recordExpectedJobs(temp.database.db, jobs, 'track', new Date(T0 + 1))).toBe(1202);
    const rows = await temp.database.db.selectFrom('expected_jobs').selectAll().execute();
    expect(rows).toHaveLength(1203);
    expect(rows.find((r) => r.job_id === ids[7])).toMatchObject({
      state: 'received',
      kind: 'search_contact',
      origin: 'hint',
    });
  });

  it('records nothing of a long list when one chunk fails', async () => {
    const jobs = Array.from({ length: 1100 }, () => ({ job_id: randomUUID(), kind: 'job_change' as const }));
    // A NOT NULL violation in the last chunk: the earlier chunks must be rolled back with it.
    const broken = [...jobs, { job_id: randomUUID(), kind: null as unknown as 'job_change' }];
    await expect(recordExpectedJobs(temp.database.db, broken, 'track', new Date(T0))).rejects.toThrow();
    expect(await temp.database.db.selectFrom('expected_jobs').selectAll().execute()).toEqual([]);
  });
});

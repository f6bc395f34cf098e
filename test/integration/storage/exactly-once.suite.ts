/** Storage suite: replays, duplicates, upgrades and races converge on one stored job. */
import { describe, expect, it } from 'vitest';
import { countJobs, getJob } from '../../../src/storage/job-queries.js';
import { createJobStore, type JobStore } from '../../../src/storage/job-store/job-store.js';
import { openDatabase } from '../../../src/storage/open-database.js';
import {
  companyRevealText,
  jobChangeText,
  searchContactText,
  testUuid,
} from '../../unit/storage/envelope-texts.js';
import { START_MS, type SuiteContext } from './suite-context.js';

/** Registers these tests in the current describe block. */
export function defineExactlyOnceTests(ctx: SuiteContext): void {
  describe('exactly once', () => {
    it('answers replay to a replayed jti and changes nothing', async () => {
      const store = ctx.newStore();
      const jobId = testUuid(10);
      const running = companyRevealText(jobId, { status: 'RUNNING', withoutOutput: true });
      await store.store({ envelopeText: running, source: 'webhook', jti: 'token-a' });
      ctx.clock.ms += 1000;
      const replay = await store.store({
        envelopeText: companyRevealText(jobId),
        source: 'webhook',
        jti: 'token-a',
      });
      expect(replay).toMatchObject({ outcome: 'replay', duplicate: true, job_id: jobId });
      const row = await getJob(ctx.database.db, jobId);
      expect(row).toMatchObject({ status: 'RUNNING', envelope: running, revision: 1 });
      expect(await ctx.count('deliveries')).toBe(1);
      expect(await ctx.count('companies')).toBe(0);
    });

    it('answers duplicate to the same job under a new jti', async () => {
      const store = ctx.newStore();
      const jobId = testUuid(11);
      const text = searchContactText(jobId, 2);
      expect((await store.store({ envelopeText: text, source: 'webhook', jti: 't1' })).outcome).toBe(
        'stored',
      );
      const again = await store.store({ envelopeText: text, source: 'webhook', jti: 't2' });
      expect(again).toMatchObject({ outcome: 'duplicate', duplicate: true });
      expect(await ctx.count('jobs')).toBe(1);
      expect(await ctx.count('persons')).toBe(2);
      expect(await ctx.count('deliveries')).toBe(2);
    });

    it('upgrades RUNNING to SUCCEEDED and never SUCCEEDED back to RUNNING', async () => {
      const store = ctx.newStore();
      const a = testUuid(12);
      const runningA = searchContactText(a, 1, { status: 'RUNNING' });
      await store.store({ envelopeText: runningA, source: 'webhook' });
      expect(await ctx.count('persons', a)).toBe(1);
      ctx.clock.ms += 5000;
      const finalA = searchContactText(a, 4);
      const upgraded = await store.store({ envelopeText: finalA, source: 'finder' });
      expect(upgraded).toMatchObject({ outcome: 'updated', duplicate: false, status: 'SUCCEEDED' });
      const rowA = await getJob(ctx.database.db, a);
      expect(rowA).toMatchObject({
        status: 'SUCCEEDED',
        envelope: finalA,
        source: 'finder',
        revision: 2,
        received_at: new Date(START_MS).toISOString(),
        updated_at: new Date(START_MS + 5000).toISOString(),
      });
      expect(await ctx.count('persons', a)).toBe(4);

      const b = testUuid(13);
      const finalB = jobChangeText(b);
      await store.store({ envelopeText: finalB, source: 'webhook' });
      const late = await store.store({
        envelopeText: jobChangeText(b, { status: 'RUNNING' }),
        source: 'webhook',
      });
      expect(late).toMatchObject({ outcome: 'duplicate', duplicate: true, status: 'RUNNING' });
      expect(await getJob(ctx.database.db, b)).toMatchObject({
        status: 'SUCCEEDED',
        envelope: finalB,
        revision: 1,
      });
    });

    it('orders copies of one job within a batch as they arrived', async () => {
      const store = ctx.newStore();
      const a = testUuid(14);
      const b = testUuid(15);
      const results = await Promise.all([
        store.store({ envelopeText: jobChangeText(a, { status: 'RUNNING' }), source: 'webhook' }),
        store.store({ envelopeText: jobChangeText(b), source: 'webhook' }),
        store.store({ envelopeText: jobChangeText(a), source: 'webhook' }),
        store.store({ envelopeText: jobChangeText(b, { status: 'RUNNING' }), source: 'webhook' }),
      ]);
      expect(results.map((r) => r.outcome)).toEqual(['stored', 'stored', 'updated', 'duplicate']);
      expect(store.stats().transactions).toBe(1);
      expect(await getJob(ctx.database.db, a)).toMatchObject({ status: 'SUCCEEDED', revision: 2 });
      expect(await getJob(ctx.database.db, b)).toMatchObject({ status: 'SUCCEEDED', revision: 1 });
      expect(await ctx.count('job_changes')).toBe(2);
    });

    it('answers replay to a jti repeated within one batch', async () => {
      const store = ctx.newStore();
      const results = await Promise.all([
        store.store({ envelopeText: companyRevealText(testUuid(16)), source: 'webhook', jti: 'same' }),
        store.store({ envelopeText: companyRevealText(testUuid(17)), source: 'webhook', jti: 'same' }),
      ]);
      expect(results.map((r) => r.outcome)).toEqual(['stored', 'replay']);
      expect(await getJob(ctx.database.db, testUuid(17))).toBeUndefined();
    });

    it('replaces a stored copy that had no status with a finished one', async () => {
      const store = ctx.newStore();
      const jobId = testUuid(18);
      const statusless = jobChangeText(jobId).replace('"status":"SUCCEEDED",', '');
      expect((await store.store({ envelopeText: statusless, source: 'webhook' })).status).toBe('');
      const finished = await store.store({ envelopeText: jobChangeText(jobId), source: 'finder' });
      expect(finished.outcome).toBe('updated');
      expect(await getJob(ctx.database.db, jobId)).toMatchObject({ status: 'SUCCEEDED', source: 'finder' });
    });

    it('converges 20 jobs × 10 concurrent copies on 20 jobs, one non-duplicate each', async () => {
      const store = ctx.newStore();
      const ids = Array.from({ length: 20 }, (_, i) => testUuid(100 + i));
      const calls = ids.flatMap((id, i) =>
        Array.from({ length: 10 }, (_, copy) =>
          store.store({ envelopeText: companyRevealText(id), source: 'webhook', jti: `jti-${i}-${copy}` }),
        ),
      );
      const results = await Promise.all(calls);
      expect(await countJobs(ctx.database.db)).toBe(20);
      expect(await ctx.count('companies')).toBe(20);
      for (const id of ids) {
        const mine = results.filter((r) => r.job_id === id);
        expect(mine).toHaveLength(10);
        expect(mine.filter((r) => !r.duplicate)).toHaveLength(1);
        expect(mine.filter((r) => r.outcome === 'duplicate')).toHaveLength(9);
      }
    });

    it('stores each job once when two stores on separate connections race', async () => {
      const other = await openDatabase(ctx.url);
      try {
        const storeA = ctx.newStore();
        const storeB = createJobStore({ database: other, now: ctx.now });
        const ids = Array.from({ length: 30 }, (_, i) => testUuid(300 + i));
        const send = (store: JobStore, side: string) =>
          ids.map((id, i) =>
            store.store({ envelopeText: jobChangeText(id), source: 'webhook', jti: `${side}-${i}` }),
          );
        const results = await Promise.all([...send(storeA, 'a'), ...send(storeB, 'b')]);
        await storeB.close();
        expect(await countJobs(ctx.database.db)).toBe(30);
        expect(await ctx.count('job_changes')).toBe(30);
        expect(await ctx.count('persons')).toBe(30);
        for (const id of ids) {
          expect(results.filter((r) => r.job_id === id && !r.duplicate)).toHaveLength(1);
        }
      } finally {
        await other.close();
      }
    });
  });
}

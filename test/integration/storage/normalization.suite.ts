/** Storage suite: deferred normalization (the queue, the normalizer, and the store that runs it). */
import { describe, expect, it } from 'vitest';
import { getJob } from '../../../src/storage/job-queries.js';
import { DEFAULT_DEFER_ABOVE_CHARS } from '../../../src/storage/job-store/job-store.js';
import {
  countQueued,
  normalizeQueuedJobs,
  oldestQueuedAt,
} from '../../../src/storage/job-store/normalization-queue.js';
import { prepareJob } from '../../../src/storage/job-store/prepare-job.js';
import { writeJobs } from '../../../src/storage/job-store/write-jobs.js';
import {
  companyRevealText,
  jobChangeText,
  searchContactText,
  testUuid,
} from '../../unit/storage/envelope-texts.js';
import { START_MS, type SuiteContext } from './suite-context.js';

/** Persons on a page large enough to be normalized after its acknowledgement by a deferred store. */
const LARGE_PAGE = 40;

/** Registers these tests in the current describe block. */
export function defineNormalizationTests(ctx: SuiteContext): void {
  describe('deferred normalization', () => {
    /** Stores `texts` deferred in one transaction, as the store's commit loop would. */
    async function writeDeferred(texts: readonly string[], atMs = ctx.clock.ms) {
      const jobs = texts.map((envelopeText) => prepareJob({ envelopeText, source: 'webhook' }, atMs));
      const nowIso = new Date(atMs).toISOString();
      return ctx.database.db
        .transaction()
        .execute((trx) => writeJobs(trx, jobs, nowIso, { defer: () => true }));
    }

    async function receivedAtOf(table: 'persons' | 'companies' | 'job_changes', jobId: string) {
      const rows = await ctx.database.db
        .selectFrom(table)
        .select('received_at')
        .where('job_id', '=', jobId)
        .execute();
      return [...new Set(rows.map((row) => row.received_at))];
    }

    it('stores and queues a job in one transaction, checked but without its rows yet', async () => {
      const jobId = testUuid(1);
      const [result] = await writeDeferred([searchContactText(jobId, 3)]);
      expect(result).toMatchObject({ outcome: 'stored', revision: 1, schemaValid: true });
      expect(await ctx.count('persons')).toBe(0);
      expect(await countQueued(ctx.database.db)).toBe(1);
      expect(await oldestQueuedAt(ctx.database.db)).toBe(new Date(START_MS).toISOString());
      expect(await getJob(ctx.database.db, jobId)).toMatchObject({ schema_valid: 1, schema_issues: null });
    });

    it('normalizes queued jobs from their stored envelopes: rows dated when each was stored, queue emptied', async () => {
      const page = testUuid(2);
      const reveal = testUuid(3);
      const misfit = testUuid(4);
      const misfitText = JSON.stringify({ status: 'SUCCEEDED', input: { task: { job_id: misfit } } });
      await writeDeferred([searchContactText(page, 3), companyRevealText(reveal), misfitText]);
      ctx.clock.ms += 60_000;
      const report = await normalizeQueuedJobs(ctx.database);
      expect(report).toEqual({ normalized: 3, dropped: 0, more: false });
      expect(await countQueued(ctx.database.db)).toBe(0);
      expect(await oldestQueuedAt(ctx.database.db)).toBeUndefined();
      expect(await ctx.count('persons', page)).toBe(3);
      expect(await ctx.count('companies', reveal)).toBe(1);
      expect(await receivedAtOf('persons', page)).toEqual([new Date(START_MS).toISOString()]);
      expect(await getJob(ctx.database.db, page)).toMatchObject({ schema_valid: 1, schema_issues: null });
      // Flagged when stored: the check does not wait for the rows.
      const flagged = await getJob(ctx.database.db, misfit);
      expect(flagged?.schema_valid).toBe(0);
      expect(JSON.parse(flagged?.schema_issues ?? '[]').length).toBeGreaterThan(0);
    });

    it('replaces the rows of a RUNNING copy when its finished copy is normalized', async () => {
      const jobId = testUuid(5);
      await writeDeferred([jobChangeText(jobId, { status: 'RUNNING', withoutOutput: true })]);
      await normalizeQueuedJobs(ctx.database);
      expect(await ctx.count('job_changes', jobId)).toBe(0);
      ctx.clock.ms += 1000;
      const [upgrade] = await writeDeferred([jobChangeText(jobId)]);
      expect(upgrade).toMatchObject({ outcome: 'updated', revision: 2 });
      await normalizeQueuedJobs(ctx.database);
      expect(await ctx.count('job_changes', jobId)).toBe(1);
      expect(await ctx.count('persons', jobId)).toBe(1);
      expect(await receivedAtOf('job_changes', jobId)).toEqual([new Date(START_MS + 1000).toISOString()]);
      // Normalizing the same revision again (a raced re-queue) leaves one set of rows.
      await ctx.database.db
        .insertInto('normalization_queue')
        .values({ job_id: jobId, revision: 2, stored_at: new Date(START_MS + 1000).toISOString() })
        .execute();
      await normalizeQueuedJobs(ctx.database);
      expect(await ctx.count('persons', jobId)).toBe(1);
    });

    it('drops the queue row of a job deleted before it was normalized', async () => {
      const jobId = testUuid(6);
      await writeDeferred([companyRevealText(jobId)]);
      await ctx.database.db.deleteFrom('jobs').where('job_id', '=', jobId).execute();
      expect(await normalizeQueuedJobs(ctx.database)).toEqual({ normalized: 0, dropped: 1, more: false });
      expect(await countQueued(ctx.database.db)).toBe(0);
      expect(await ctx.count('companies')).toBe(0);
    });

    it('takes at most maxJobs per batch, oldest first, and says when more wait', async () => {
      for (let i = 0; i < 5; i += 1) {
        await writeDeferred([companyRevealText(testUuid(10 + i))], START_MS + i * 1000);
      }
      expect(await normalizeQueuedJobs(ctx.database, { maxJobs: 2 })).toMatchObject({
        normalized: 2,
        more: true,
      });
      expect(await ctx.count('companies', testUuid(10))).toBe(1);
      expect(await ctx.count('companies', testUuid(14))).toBe(0);
      expect(await oldestQueuedAt(ctx.database.db)).toBe(new Date(START_MS + 2000).toISOString());
    });

    it('a deferred store queues large envelopes and is settled once each has its rows', async () => {
      const store = ctx.newStore(undefined, 'deferred');
      const ids = Array.from({ length: 30 }, (_, i) => testUuid(100 + i));
      expect(searchContactText(ids[0]!, LARGE_PAGE).length).toBeGreaterThan(DEFAULT_DEFER_ABOVE_CHARS);
      const results = await Promise.all(
        ids.map((id) => store.store({ envelopeText: searchContactText(id, LARGE_PAGE), source: 'webhook' })),
      );
      expect(results.every((r) => r.outcome === 'stored' && r.schemaValid)).toBe(true);
      // Held by the store, not read back: still the same rows.
      await store.settled();
      expect(await countQueued(ctx.database.db)).toBe(0);
      expect(await ctx.count('persons')).toBe(30 * LARGE_PAGE);
    });

    it('a deferred store writes the rows of small envelopes in the storing transaction', async () => {
      const store = ctx.newStore(undefined, 'deferred');
      const page = testUuid(150);
      const reveal = testUuid(151);
      const [a, b] = await Promise.all([
        store.store({ envelopeText: searchContactText(page, 2), source: 'webhook' }),
        store.store({ envelopeText: companyRevealText(reveal), source: 'webhook' }),
      ]);
      expect([a?.schemaValid, b?.schemaValid]).toEqual([true, true]);
      // No settled(): the rows were committed with the jobs.
      expect(await ctx.count('persons', page)).toBe(2);
      expect(await ctx.count('companies', reveal)).toBe(1);
      expect(await countQueued(ctx.database.db)).toBe(0);
    });

    it('a job prepared elsewhere (as serve’s main thread does) is written with the rows it carries', async () => {
      const store = ctx.newStore(undefined, 'deferred');
      const jobId = testUuid(160);
      const job = structuredClone(
        prepareJob({ envelopeText: jobChangeText(jobId), source: 'webhook' }, ctx.clock.ms),
      );
      const result = await store.submit({ type: 'job', job, atMs: ctx.clock.ms });
      expect(result).toMatchObject({ outcome: 'stored', schemaValid: true });
      expect(await ctx.count('job_changes', jobId)).toBe(1);
    });

    it('a large job prepared without its rows (as serve sends it) gets them from the normalizer', async () => {
      const store = ctx.newStore(undefined, 'deferred');
      const jobId = testUuid(165);
      const text = searchContactText(jobId, LARGE_PAGE);
      const job = structuredClone(prepareJob({ envelopeText: text, source: 'webhook' }, ctx.clock.ms, false));
      expect(await store.submit({ type: 'job', job, atMs: ctx.clock.ms })).toMatchObject({
        outcome: 'stored',
      });
      await store.settled();
      expect(await ctx.count('persons', jobId)).toBe(LARGE_PAGE);
    });

    it('normalizes a job queued twice (upgraded before its rows were written) once, from its newest copy', async () => {
      const jobId = testUuid(170);
      await writeDeferred([searchContactText(jobId, 2, { status: 'RUNNING' })]);
      ctx.clock.ms += 1000;
      await writeDeferred([searchContactText(jobId, 3)]);
      expect(await countQueued(ctx.database.db)).toBe(2);
      expect(await normalizeQueuedJobs(ctx.database)).toMatchObject({ normalized: 1, more: false });
      expect(await countQueued(ctx.database.db)).toBe(0);
      expect(await ctx.count('persons', jobId)).toBe(3);
      expect(await receivedAtOf('persons', jobId)).toEqual([new Date(START_MS + 1000).toISOString()]);
    });

    it('a deferred store picks up what an earlier run left in the queue', async () => {
      const jobId = testUuid(200);
      await writeDeferred([searchContactText(jobId, 4)]);
      const store = ctx.newStore(undefined, 'deferred');
      await store.settled();
      expect(await ctx.count('persons', jobId)).toBe(4);
    });

    it('two deferred stores on one database write each job’s rows exactly once', async () => {
      const a = ctx.newStore(undefined, 'deferred');
      const b = ctx.newStore(undefined, 'deferred');
      const ids = Array.from({ length: 40 }, (_, i) => testUuid(300 + i));
      // Every job goes to both stores (a duplicate delivery to two replicas).
      await Promise.all(
        ids.flatMap((id) =>
          [a, b].map((s) => s.store({ envelopeText: searchContactText(id, LARGE_PAGE), source: 'webhook' })),
        ),
      );
      await Promise.all([a.settled(), b.settled()]);
      expect(await ctx.count('persons')).toBe(40 * LARGE_PAGE);
      expect(await countQueued(ctx.database.db)).toBe(0);
    });
  });
}

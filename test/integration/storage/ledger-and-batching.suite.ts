/** Storage suite: the ledger of expected jobs, and group commit. */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import { countJobs, getJob } from '../../../src/storage/job-queries.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import {
  companyRevealEmptyText,
  jobChangeText,
  searchContactText,
  testUuid,
} from '../../unit/storage/envelope-texts.js';
import { START_MS, type SuiteContext } from './suite-context.js';

/** Registers these tests in the current describe block. */
export function defineLedgerAndBatchingTests(ctx: SuiteContext): void {
  describe('ledger', () => {
    async function addLedgerEntry(jobId: string): Promise<void> {
      const at = new Date(START_MS).toISOString();
      await ctx.database.db
        .insertInto('expected_jobs')
        .values({
          job_id: jobId,
          kind: 'job_change',
          state: 'pending',
          origin: 'track',
          attempts: 1,
          next_attempt_at: at,
          last_error: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }

    async function ledger(jobId: string) {
      return ctx.database.db
        .selectFrom('expected_jobs')
        .selectAll()
        .where('job_id', '=', jobId)
        .executeTakeFirst();
    }

    it('marks an expected job received when its finished copy is stored, even as a duplicate', async () => {
      const store = ctx.newStore();
      const a = testUuid(40);
      await addLedgerEntry(a);
      await store.store({ envelopeText: jobChangeText(a), source: 'webhook' });
      expect(await ledger(a)).toMatchObject({ state: 'received', origin: 'track' });

      const b = testUuid(41);
      await store.store({ envelopeText: jobChangeText(b), source: 'webhook' });
      await addLedgerEntry(b);
      ctx.clock.ms += 1000;
      const again = await store.store({ envelopeText: jobChangeText(b), source: 'finder' });
      expect(again.outcome).toBe('duplicate');
      expect(await ledger(b)).toMatchObject({
        state: 'received',
        updated_at: new Date(ctx.clock.ms).toISOString(),
      });
    });

    it('adds a pending hint for a RUNNING job, which the finished copy closes', async () => {
      const store = ctx.newStore();
      const jobId = testUuid(42);
      await store.store({ envelopeText: jobChangeText(jobId, { status: 'RUNNING' }), source: 'webhook' });
      expect(await ledger(jobId)).toMatchObject({
        state: 'pending',
        origin: 'hint',
        kind: 'job_change',
        attempts: 0,
      });
      await store.store({ envelopeText: jobChangeText(jobId), source: 'webhook' });
      expect(await ledger(jobId)).toMatchObject({ state: 'received', origin: 'hint' });
    });

    it('leaves an existing ledger entry alone when a RUNNING copy arrives', async () => {
      const jobId = testUuid(43);
      await addLedgerEntry(jobId);
      await ctx.newStore().store({
        envelopeText: jobChangeText(jobId, { status: 'RUNNING' }),
        source: 'webhook',
      });
      expect(await ledger(jobId)).toMatchObject({ state: 'pending', origin: 'track', attempts: 1 });
    });
  });

  describe('group commit', () => {
    it('commits 100 concurrent stores in far fewer than 100 transactions', async () => {
      const store = ctx.newStore();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          store.store({ envelopeText: searchContactText(testUuid(500 + i), 2), source: 'webhook' }),
        ),
      );
      expect(results.every((r) => r.outcome === 'stored')).toBe(true);
      expect(await countJobs(ctx.database.db)).toBe(100);
      expect(await ctx.count('persons')).toBe(200);
      const stats = store.stats();
      expect(stats.committedItems).toBe(100);
      expect(stats.transactions).toBeLessThanOrEqual(5);
      expect(stats.largestBatch).toBeGreaterThan(1);
    });

    it('honours maxBatch', async () => {
      const store = ctx.newStore(8);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store.store({ envelopeText: companyRevealEmptyText(testUuid(700 + i)), source: 'webhook' }),
        ),
      );
      expect(store.stats().largestBatch).toBeLessThanOrEqual(8);
      expect(store.stats().transactions).toBeGreaterThanOrEqual(5);
    });

    it('does not let one failing item fail the others of its batch', async () => {
      const poison = testUuid(999, 'dddddddd');
      await installPoisonTrigger(ctx.database, poison);
      try {
        const store = ctx.newStore();
        const ids = Array.from({ length: 9 }, (_, i) => testUuid(800 + i));
        const settled = await Promise.allSettled([
          ...ids.slice(0, 4).map((id) => store.store({ envelopeText: jobChangeText(id), source: 'webhook' })),
          store.store({ envelopeText: jobChangeText(poison), source: 'webhook' }),
          ...ids.slice(4).map((id) => store.store({ envelopeText: jobChangeText(id), source: 'webhook' })),
        ]);
        const rejected = settled.filter((s) => s.status === 'rejected');
        expect(rejected).toHaveLength(1);
        const reason = (rejected[0] as PromiseRejectedResult).reason;
        expect(reason).toBeInstanceOf(StorageError);
        expect(reason).toMatchObject({ transient: false, code: 'STORAGE_FAILED' });
        expect(await countJobs(ctx.database.db)).toBe(9);
        expect(await getJob(ctx.database.db, poison)).toBeUndefined();
        expect(await ctx.count('job_changes')).toBe(9);
        expect(store.stats().failedBatches).toBe(1);
      } finally {
        await dropPoisonTrigger(ctx.database);
      }
    });
  });
}

async function installPoisonTrigger(database: HooksyncDatabase, jobId: string): Promise<void> {
  if (database.dialect === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER poison BEFORE INSERT ON jobs WHEN NEW.job_id = '${jobId}' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`,
      )
      .execute(database.db);
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION poison() RETURNS trigger AS $$ BEGIN
         IF NEW.job_id = '${jobId}' THEN RAISE EXCEPTION 'poisoned' USING ERRCODE = 'P0001'; END IF;
         RETURN NEW; END $$ LANGUAGE plpgsql`,
    )
    .execute(database.db);
  await sql
    .raw('CREATE TRIGGER poison BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION poison()')
    .execute(database.db);
}

async function dropPoisonTrigger(database: HooksyncDatabase): Promise<void> {
  if (database.dialect === 'sqlite') {
    await sql.raw('DROP TRIGGER IF EXISTS poison').execute(database.db);
    return;
  }
  await sql.raw('DROP TRIGGER IF EXISTS poison ON jobs').execute(database.db);
  await sql.raw('DROP FUNCTION IF EXISTS poison()').execute(database.db);
}

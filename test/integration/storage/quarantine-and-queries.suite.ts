/** Storage suite: quarantine, close, and the CLI queries. */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countJobs, getJob, listJobs, purgeExpiredDeliveries } from '../../../src/storage/job-queries.js';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { jtiKey } from '../../../src/storage/job-store/jti-key.js';
import { listQuarantine } from '../../../src/storage/quarantine/list-quarantine.js';
import {
  companyRevealText,
  jobChangeText,
  searchContactText,
  testUuid,
} from '../../unit/storage/envelope-texts.js';
import { START_MS, type SuiteContext } from './suite-context.js';

/** Registers these tests in the current describe block. */
export function defineQuarantineAndQueryTests(ctx: SuiteContext): void {
  describe('quarantine and close', () => {
    it('keeps a refused body byte for byte', async () => {
      const body = Uint8Array.from([0x7b, 0xff, 0xfe, 0x00, 0x22, 0x7d]);
      await ctx.newStore().quarantine({
        reason: 'BODY_HASH_MISMATCH',
        detail: 'hash differs',
        claimedJobId: testUuid(50),
        kind: 'job_change',
        contentType: 'application/json',
        body,
      });
      const rows = await listQuarantine(ctx.database.db);
      expect(rows).toHaveLength(1);
      expect(Buffer.from(rows[0]!.body).equals(Buffer.from(body))).toBe(true);
      expect(rows[0]).toMatchObject({
        reason: 'BODY_HASH_MISMATCH',
        claimed_job_id: testUuid(50),
        kind: 'job_change',
        content_type: 'application/json',
        received_at: new Date(START_MS).toISOString(),
      });
      expect(rows[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('stores any body compressed and reads it back byte for byte (property)', async () => {
      const store = ctx.newStore();
      const seen = new Set<string>();
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.uint8Array({ maxLength: 3000 }),
            fc
              .string({ minLength: 1, maxLength: 40 })
              .map((s) => Buffer.from(s.repeat(1 + 40_000 / s.length))),
          ),
          async (body) => {
            await store.quarantine({ reason: 'SIGNATURE_INVALID', body });
            const [row] = (await listQuarantine(ctx.database.db)).filter((r) => !seen.has(r.id));
            seen.add(row!.id);
            expect(row!.body.equals(Buffer.from(body))).toBe(true);
            expect(row!.body_bytes).toBe(body.length);
          },
        ),
        { numRuns: 25 },
      );
      const stored = await ctx.database.db
        .selectFrom('quarantine')
        .select(['body_z', 'body_bytes'])
        .execute();
      const raw = stored.reduce((sum, r) => sum + r.body_bytes, 0);
      const kept = stored.reduce((sum, r) => sum + r.body_z.length, 0);
      expect(kept).toBeLessThan(raw);
    });

    it('close waits for work in flight, then refuses new work as transient', async () => {
      const store = createJobStore({ database: ctx.database, now: ctx.now });
      const pending = Array.from({ length: 10 }, (_, i) =>
        store.store({ envelopeText: companyRevealText(testUuid(900 + i)), source: 'webhook' }),
      );
      await store.close();
      expect(await countJobs(ctx.database.db)).toBe(10);
      await expect(Promise.all(pending)).resolves.toHaveLength(10);
      await expect(
        store.store({ envelopeText: companyRevealText(testUuid(950)), source: 'webhook' }),
      ).rejects.toMatchObject({ transient: true, code: 'STORAGE_UNAVAILABLE' });
    });

    it('reads jobs and quarantine back, and purges expired jtis', async () => {
      const store = ctx.newStore();
      await store.store({ envelopeText: companyRevealText(testUuid(70)), source: 'webhook', jti: 'old' });
      ctx.clock.ms += 1000;
      await store.store({
        envelopeText: jobChangeText(testUuid(71), { status: 'RUNNING' }),
        source: 'webhook',
        jti: 'new',
        tokenExpiresAt: new Date(START_MS + 3_600_000),
      });
      ctx.clock.ms += 1000;
      await store.store({ envelopeText: jobChangeText(testUuid(72)), source: 'launch' });
      expect(await getJob(ctx.database.db, testUuid(99))).toBeUndefined();
      expect(await countJobs(ctx.database.db)).toBe(3);
      expect(await countJobs(ctx.database.db, { kind: 'job_change' })).toBe(2);
      expect(await countJobs(ctx.database.db, { kind: 'job_change', status: 'RUNNING' })).toBe(1);
      expect((await listJobs(ctx.database.db, { status: 'SUCCEEDED' })).map((j) => j.job_id)).toEqual([
        testUuid(72),
        testUuid(70),
      ]);
      expect((await listJobs(ctx.database.db, { limit: 1 })).map((j) => j.job_id)).toEqual([testUuid(72)]);
      expect(await listJobs(ctx.database.db, { kind: 'search_contact' })).toEqual([]);
      await expect(listJobs(ctx.database.db, { limit: -1 })).rejects.toThrow(TypeError);

      for (const reason of ['SIGNATURE_EXPIRED', 'BODY_MALFORMED_JSON'] as const) {
        ctx.clock.ms += 1000;
        await store.quarantine({ reason, body: new TextEncoder().encode(reason) });
      }
      const quarantined = await listQuarantine(ctx.database.db, { limit: 1 });
      expect(quarantined.map((q) => q.reason)).toEqual(['BODY_MALFORMED_JSON']);
      expect(await listQuarantine(ctx.database.db)).toHaveLength(2);

      // 'old' expires 15 minutes after it was stored; 'new' an hour after START.
      expect(await purgeExpiredDeliveries(ctx.database.db, START_MS + 10 * 60_000)).toBe(0);
      expect(await purgeExpiredDeliveries(ctx.database.db, START_MS + 20 * 60_000)).toBe(1);
      const left = await ctx.database.db.selectFrom('deliveries').select('jti_key').execute();
      expect(left.map((row) => Buffer.from(row.jti_key))).toEqual([jtiKey('new')]);
      expect(await purgeExpiredDeliveries(ctx.database.db, new Date(START_MS + 7_200_000))).toBe(1);
    });

    it('streams rows (the Postgres dialect has its cursor configured)', async () => {
      const store = ctx.newStore();
      await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          store.store({ envelopeText: searchContactText(testUuid(80 + i), 3), source: 'webhook' }),
        ),
      );
      const seen: string[] = [];
      const stream = ctx.database.db
        .selectFrom('persons')
        .select(['job_id', 'position'])
        .orderBy('job_id')
        .orderBy('position')
        .stream(2);
      for await (const row of stream) seen.push(`${row.job_id}/${row.position}`);
      expect(seen).toHaveLength(15);
      expect(seen[0]).toBe(`${testUuid(80)}/0`);
    });

    it('lists stored jobs newest first', async () => {
      const store = ctx.newStore();
      for (let i = 0; i < 3; i += 1) {
        ctx.clock.ms = START_MS + i * 1000;
        await store.store({ envelopeText: jobChangeText(testUuid(60 + i)), source: 'webhook' });
      }
      const listed = await listJobs(ctx.database.db, { kind: 'job_change' });
      expect(listed.map((j) => j.job_id)).toEqual([testUuid(62), testUuid(61), testUuid(60)]);
    });
  });
}

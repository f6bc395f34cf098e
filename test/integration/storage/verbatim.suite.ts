/** Storage suite: envelopes stored byte for byte, kinds, schema fit and normalized rows. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/contract/json.js';
import { computeBodyHash } from '../../../src/contract/webhook-signature.js';
import { loadEnvelopeText } from '../../../src/storage/envelope-codec.js';
import { countJobs, getJob } from '../../../src/storage/job-queries.js';
import { readCompanyReveal } from '../../../src/storage/normalize-company.js';
import {
  companyRevealEmptyText,
  companyRevealText,
  jobChangeText,
  searchContactText,
  testUuid,
  unknownKindText,
} from '../../unit/storage/envelope-texts.js';
import { START_MS, type SuiteContext } from './suite-context.js';

/** Registers these tests in the current describe block. */
export function defineVerbatimTests(ctx: SuiteContext): void {
  describe('verbatim storage', () => {
    it.each([
      ['company_reveal', companyRevealText],
      ['company_reveal', companyRevealEmptyText],
      ['job_change', (id: string) => jobChangeText(id)],
      ['search_contact', (id: string) => searchContactText(id, 3)],
    ] as const)('stores a %s envelope byte for byte', async (kind, build) => {
      const jobId = testUuid(1);
      const text = build(jobId);
      const result = await ctx.newStore().store({ envelopeText: text, source: 'webhook', jti: 'jti-1' });
      expect(result).toEqual({
        job_id: jobId,
        kind,
        status: 'SUCCEEDED',
        outcome: 'stored',
        duplicate: false,
        schemaValid: true,
        revision: 1,
      });
      const row = await getJob(ctx.database.db, jobId);
      expect(row?.envelope).toBe(text);
      expect(Buffer.from(row?.envelope ?? '', 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true);
      expect(row).toMatchObject({
        kind,
        status: 'SUCCEEDED',
        payload_hash: computeBodyHash(text),
        source: 'webhook',
        schema_valid: 1,
        schema_issues: null,
        received_at: new Date(START_MS).toISOString(),
        revision: 1,
      });
      expect(row?.start_date).toMatch(/^2026-03-04T10:11:12\.\d{6}[+-]\d{2}:00$/);
    });

    it('keeps an int64 beyond 2^53 as its digits in the fields read from a reveal', async () => {
      const jobId = testUuid(2);
      await ctx.newStore().store({ envelopeText: companyRevealText(jobId), source: 'finder' });
      const company = await ctx.database.db
        .selectFrom('companies')
        .selectAll()
        .where('job_id', '=', jobId)
        .executeTakeFirstOrThrow();
      expect(company).toMatchObject({ job_id: jobId, name: 'Acme "Rockets" GmbH' });
      const stored = await loadEnvelopeText(ctx.database.db, jobId);
      const fields = readCompanyReveal(parseJsonText(stored ?? ''));
      expect(fields?.total_funding_usd).toBe('9007199254740993');
      expect(fields?.funding_rounds).toContain('"amount_raised_usd":9007199254740993');
      expect(fields).toMatchObject({
        ip: '203.0.113.7',
        ip_type: 'company',
        confidence_score: 'high',
        ip_geo_city: 'München',
        name: 'Acme "Rockets" GmbH',
        description: 'Line one\nline two ☃',
        employees_count: 1234,
        founded: 1999,
        company_type: 'Privately Held',
        technologies: '["React","Kysely"]',
      });
    });

    it('stores \\u0000 escapes verbatim and drops U+0000 only from normalized columns', async () => {
      const jobId = testUuid(4);
      const text = searchContactText(jobId, 1).replace(
        '"first_name":"Person0"',
        '"first_name":"Per\\u0000son0"',
      );
      expect(text).toContain('Per\\u0000son0');
      await ctx.newStore().store({ envelopeText: text, source: 'webhook' });
      expect((await getJob(ctx.database.db, jobId))?.envelope).toBe(text);
      const person = await ctx.database.db.selectFrom('persons').selectAll().executeTakeFirstOrThrow();
      expect(person.first_name).toBe('Person0');
    });

    it('stores the context_id and dates exactly as sent', async () => {
      const jobId = testUuid(3);
      await ctx.newStore().store({ envelopeText: jobChangeText(jobId), source: 'webhook' });
      const row = await getJob(ctx.database.db, jobId);
      expect(row).toMatchObject({
        context_id: testUuid(3, 'cccccccc'),
        start_date: '2026-03-04T10:11:12.123456-05:00',
        stop_date: '2026-03-04T10:11:13.654321+02:00',
      });
    });
  });

  describe('shared fixtures', () => {
    const directory = join(import.meta.dirname, '../../fixtures/envelopes');
    const files = readdirSync(directory).filter((f) => f.endsWith('.json'));

    it('stores every fixture envelope verbatim, valid, with its rows', async () => {
      expect(files.length).toBeGreaterThan(0);
      const store = ctx.newStore();
      for (const file of files) {
        const text = readFileSync(join(directory, file), 'utf8');
        const result = await store.store({ envelopeText: text, source: 'webhook' });
        expect(result, file).toMatchObject({ outcome: 'stored', schemaValid: true });
        expect((await getJob(ctx.database.db, result.job_id))?.envelope, file).toBe(text);
      }
      expect(await countJobs(ctx.database.db)).toBe(files.length);
      const revealed = await ctx.database.db.selectFrom('companies').select('job_id').execute();
      expect(revealed.length).toBeGreaterThan(0);
    });
  });

  describe('kinds and schema fit', () => {
    it('stores an unknown kind as unknown, with no normalized rows', async () => {
      const jobId = testUuid(20);
      const result = await ctx.newStore().store({ envelopeText: unknownKindText(jobId), source: 'webhook' });
      expect(result).toMatchObject({ kind: 'unknown', outcome: 'stored', schemaValid: true });
      expect(await getJob(ctx.database.db, jobId)).toMatchObject({ kind: 'unknown' });
      expect(
        (await ctx.count('persons')) + (await ctx.count('companies')) + (await ctx.count('job_changes')),
      ).toBe(0);
    });

    it('stores an envelope that does not fit its schema, flagged', async () => {
      const jobId = testUuid(21);
      const text = companyRevealText(jobId).replace(
        '"confidence_score":"high"',
        '"confidence_score":"certain"',
      );
      const result = await ctx.newStore().store({ envelopeText: text, source: 'webhook' });
      expect(result).toMatchObject({ outcome: 'stored', schemaValid: false, kind: 'company_reveal' });
      const row = await getJob(ctx.database.db, jobId);
      expect(row?.schema_valid).toBe(0);
      const issues: unknown = JSON.parse(row?.schema_issues ?? 'null');
      expect(Array.isArray(issues) && issues.some((i) => String(i).includes('confidence_score'))).toBe(true);
      expect(row?.envelope).toBe(text);
      expect(await ctx.count('companies', jobId)).toBe(1);
    });

    it('writes the normalized rows of each kind', async () => {
      const store = ctx.newStore();
      const ids = [testUuid(30), testUuid(31), testUuid(32), testUuid(33), testUuid(34)];
      await Promise.all([
        store.store({ envelopeText: searchContactText(ids[0]!, 3), source: 'webhook' }),
        store.store({ envelopeText: companyRevealText(ids[1]!), source: 'webhook' }),
        store.store({ envelopeText: companyRevealEmptyText(ids[2]!), source: 'webhook' }),
        store.store({ envelopeText: jobChangeText(ids[3]!), source: 'webhook' }),
        store.store({ envelopeText: jobChangeText(ids[4]!, { change: 'no_change' }), source: 'webhook' }),
      ]);
      const persons = await ctx.database.db
        .selectFrom('persons')
        .selectAll()
        .orderBy('job_id')
        .orderBy('position')
        .execute();
      expect(persons.map((p) => [p.job_id, p.position, p.source_kind])).toEqual([
        [ids[0], 0, 'search_contact'],
        [ids[0], 1, 'search_contact'],
        [ids[0], 2, 'search_contact'],
        [ids[3], 0, 'job_change'],
      ]);
      expect(persons[1]).toMatchObject({
        first_name: 'Person1',
        last_name: 'Née',
        company_domain: 'acme.example',
      });
      const empty = await ctx.database.db
        .selectFrom('companies')
        .selectAll()
        .where('job_id', '=', ids[2]!)
        .executeTakeFirstOrThrow();
      expect(empty).toEqual({
        job_id: ids[2],
        company_id: null,
        domain: null,
        name: null,
        custom_fields: '{}',
        received_at: expect.any(String),
      });
      const changes = await ctx.database.db.selectFrom('job_changes').selectAll().orderBy('job_id').execute();
      expect(changes).toHaveLength(2);
      expect(changes[0]).toMatchObject({
        job_change_status: 'moved',
        contact_full_name: "Zoë O'Neil",
        new_title: 'VP Sales',
        new_company_name: 'NewCo',
        previous_title: 'Sales Director',
        previous_company_name: 'OldCo',
        custom_fields: '{"hubspot_id":"42"}',
      });
      expect(changes[1]).toMatchObject({
        job_change_status: 'no_change',
        person_id: null,
        previous_title: null,
      });
    });
  });
}

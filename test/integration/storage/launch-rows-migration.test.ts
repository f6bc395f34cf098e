/**
 * Persons and companies rows carry their job's input.task.custom_fields (migration 007). Rows stored before
 * it get theirs when it runs: upgrade.test.ts checks that on a database of the previous release.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { migrateToLatest } from '../../../src/storage/migrate-to-latest.js';
import { type HooksyncDatabase, openDatabase } from '../../../src/storage/open-database.js';
import { envelopeText } from '../../helpers/envelope-texts.js';

describe('migration 007 (launch rows, custom_fields on persons and companies)', () => {
  let dir: string;
  let database: HooksyncDatabase;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hooksync-m007-'));
    database = await openDatabase(join(dir, 'hooksync.db'));
  });
  afterAll(async () => {
    await database?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("writes each row with its job's custom_fields", async () => {
    expect((await migrateToLatest(database)).error).toBeUndefined();
    const store = createJobStore({ database });
    const search = envelopeText('search-contact');
    const reveal = envelopeText('company-reveal');
    await store.store({ envelopeText: search.text, source: 'webhook' });
    await store.store({ envelopeText: reveal.text, source: 'webhook' });
    await store.close();
    const { db } = database;
    const read = async () => ({
      persons: (await db.selectFrom('persons').select('custom_fields').execute()).map((r) => r.custom_fields),
      companies: (await db.selectFrom('companies').select('custom_fields').execute()).map(
        (r) => r.custom_fields,
      ),
    });
    const written = await read();
    expect(written.persons.length).toBeGreaterThan(0);
    expect(written.persons.every((c) => c === '{"campaign":"dach-q2","batch":7}')).toBe(true);
    expect(written.companies).toEqual([
      '{"visit_id":"v-20260304-0001","crm_account":48213,"is_trial":false}',
    ]);
  });
});

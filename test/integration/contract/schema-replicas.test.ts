/**
 * HOOKSYNC_DATABASE_SCHEMA on Postgres: two replicas migrating together into a schema that does not exist
 * yet, then the job store, the outbox, the lease and the views working inside it, with nothing in public.
 */
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDatabaseSchema } from '../../../src/config/database-schema.js';
import { claimEvents } from '../../../src/destinations/outbox.js';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { acquireLease } from '../../../src/storage/leases/acquire-lease.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';

const SCHEMA = 'warehouse_hooksync';
const NOW = Date.parse('2026-03-10T08:00:00.000Z');

describe.runIf(TEST_DATABASE_URL)(pgSuiteName('two replicas in a named Postgres schema'), () => {
  let drop: () => Promise<void>;
  let a: HooksyncDatabase;
  let b: HooksyncDatabase;
  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    const url = withDatabaseSchema(created.url, SCHEMA);
    [a, b] = await Promise.all([openMigratedDatabase(url), openMigratedDatabase(url)]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  it('both migrated the one new schema; nothing landed in public', async () => {
    expect([a.schema, b.schema]).toEqual([SCHEMA, SCHEMA]);
    const { rows } = await sql<{ schema: string }>`
      select distinct table_schema as schema from information_schema.tables
      where table_schema not in ('pg_catalog', 'information_schema')`.execute(a.db);
    expect(rows).toEqual([{ schema: SCHEMA }]);
    const applied = await sql<{ n: string }>`select count(*) as n from kysely_migration`.execute(b.db);
    expect(Number(applied.rows[0]?.n)).toBeGreaterThanOrEqual(18);
  });

  it('stores a job with its outbox event on one replica, the other claims it; one lease holder', async () => {
    await a.db
      .insertInto('destinations')
      .values({
        name: 'hook',
        type: 'webhook',
        active: 1,
        paused_at: null,
        pause_reason: null,
        last_error: null,
        last_error_at: null,
        updated_at: new Date(NOW).toISOString(),
      })
      .execute();
    await a.db.insertInto('destination_kinds').values({ destination: 'hook', kind: '*' }).execute();
    const envelope = await readFile(
      new URL('../../fixtures/export/envelopes/01-search-contact.json', import.meta.url),
      'utf8',
    );
    const store = createJobStore({ database: a, now: () => NOW });
    try {
      expect((await store.store({ envelopeText: envelope, source: 'webhook' })).outcome).toBe('stored');
    } finally {
      await store.close();
    }
    const claimed = await claimEvents(b, {
      destination: 'hook',
      holder: 'replica-b',
      limit: 10,
      nowIso: new Date(NOW + 1000).toISOString(),
      claimedUntil: new Date(NOW + 60_000).toISOString(),
    });
    expect(claimed).toHaveLength(1);
    const persons = await sql<{ n: string }>`select count(*) as n from hooksync_persons`.execute(b.db);
    expect(Number(persons.rows[0]?.n)).toBeGreaterThan(0);
    const deliveries = await sql<{ status: string; event_kind: string }>`
      select status, event_kind from hooksync_deliveries`.execute(a.db);
    expect(deliveries.rows).toEqual([{ status: 'pending', event_kind: 'search_contact' }]);

    const lease = { name: 'reconcile', ttlMs: 60_000, nowMs: NOW };
    expect((await acquireLease(a.db, { ...lease, holder: 'replica-a' })).acquired).toBe(true);
    expect(await acquireLease(b.db, { ...lease, holder: 'replica-b' })).toMatchObject({
      acquired: false,
      holder: 'replica-a',
    });
  });
});

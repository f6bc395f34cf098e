/**
 * Migration 009: quarantined bodies stored before it (raw bytes in quarantine.body, maybe not UTF-8, maybe
 * emptied by the byte budget) are compressed into body_z with their size, and read back byte for byte.
 * SQLite and Postgres: the migrations up to 008, raw rows inserted, then the upgrade.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { columnTypesFor } from '../../../src/storage/column-types.js';
import { migrateToLatest } from '../../../src/storage/migrate-to-latest.js';
import { MIGRATIONS } from '../../../src/storage/migrations/migration-provider.js';
import { type HooksyncDatabase, openDatabase } from '../../../src/storage/open-database.js';
import { purgePerson } from '../../../src/storage/purge-person.js';
import { listQuarantine } from '../../../src/storage/quarantine/list-quarantine.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';

const directory = mkdtempSync(join(tmpdir(), 'hooksync-m009-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const BODIES: Record<string, Buffer> = {
  a: Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7d]),
  b: Buffer.from(`{"linkedin":"https://www.linkedin.com/in/quarantined-ana/","pad":"${'é'.repeat(30_000)}"}`),
  c: Buffer.alloc(0),
  d: Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)),
};

async function migrateTo008(database: HooksyncDatabase): Promise<void> {
  const types = columnTypesFor(database.dialect);
  const migrations: Record<string, Migration> = {};
  for (const name of Object.keys(MIGRATIONS).filter((n) => n < '009')) {
    migrations[name] = { up: (d) => MIGRATIONS[name]!.up(d, types) };
  }
  const result = await new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
  }).migrateToLatest();
  if (result.error !== undefined) throw result.error;
}

async function checkMigration(database: HooksyncDatabase): Promise<void> {
  await migrateTo008(database);
  const raw = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (const [id, body] of Object.entries(BODIES)) {
    await raw
      .insertInto('quarantine')
      .values({
        id,
        reason: 'SIGNATURE_INVALID',
        body,
        received_at: `2026-11-20T00:00:0${id.charCodeAt(0) - 97}Z`,
      })
      .execute();
  }
  const report = await migrateToLatest(database);
  expect(report.error).toBeUndefined();
  // 009 and every later migration (010 destination counters, ...), nothing before.
  expect(report.applied).toEqual(Object.keys(MIGRATIONS).filter((name) => name >= '009'));

  const rows = await listQuarantine(database.db);
  expect(rows.map((r) => r.id).sort()).toEqual(Object.keys(BODIES));
  for (const row of rows) {
    expect(row.body.equals(BODIES[row.id]!), row.id).toBe(true);
    expect(row.body_bytes, row.id).toBe(BODIES[row.id]!.length);
  }
  const stored = await database.db
    .selectFrom('quarantine')
    .select(['id', 'body_z'])
    .where('id', '=', 'b')
    .execute();
  expect(stored[0]!.body_z.length).toBeLessThan(BODIES.b!.length / 10);

  // purge --person finds the person in a converted (compressed) body.
  const purged = await purgePerson(database, { linkedinUrl: 'https://www.linkedin.com/in/quarantined-ana' });
  expect(purged.deleted).toMatchObject({ quarantine: 1 });
  expect((await listQuarantine(database.db)).map((r) => r.id).sort()).toEqual(['a', 'c', 'd']);
}

describe('migration 009 on SQLite (compressed quarantine bodies)', () => {
  it('converts every stored body and reads it back byte for byte', async () => {
    const database = await openDatabase(join(directory, 'm009.sqlite'));
    try {
      await checkMigration(database);
      const columns = await sql<{ name: string }>`SELECT name FROM pragma_table_info('quarantine')`.execute(
        database.db,
      );
      expect(columns.rows.map((c) => c.name)).not.toContain('body');
    } finally {
      await database.close();
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)(
  pgSuiteName('migration 009 on Postgres (compressed quarantine bodies)'),
  () => {
    it('converts every stored body and reads it back byte for byte', async () => {
      const target = await createTestDatabase();
      const database = await openDatabase(target.url);
      try {
        await checkMigration(database);
      } finally {
        await database.close();
        await target.drop();
      }
    });
  },
);

/**
 * The data contract's views (migrations 022-024) on SQLite and on Postgres inside a named schema: their
 * columns against test/fixtures/data-contract/columns.json and each other, employment as dated rows,
 * deliveries with their reasons, and the views read by the real sqlite3 and psql clients when installed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDatabaseSchema } from '../../../src/config/database-schema.js';
import type { Database } from '../../../src/storage/database.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import {
  contractFixture,
  installed,
  seedContractRows,
  type ViewColumns,
  viewColumns,
} from './contract-fixture.js';

const fixture = contractFixture();
const SCHEMA = 'team_hooksync';

describe('the contract fixture', () => {
  it('keeps semver: a later version removes or renames a column only with a new major', () => {
    const versions = Object.keys(fixture.versions);
    for (let i = 1; i < versions.length; i += 1) {
      const [before, after] = [versions[i - 1]!, versions[i]!];
      const removed = Object.entries(fixture.versions[before]!).some(([view, columns]) =>
        columns.some((c) => !(fixture.versions[after]![view] ?? []).includes(c)),
      );
      if (removed) expect(Number(after.split('.')[0])).toBeGreaterThan(Number(before.split('.')[0]));
    }
    expect(versions.at(-1)).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

/** What both dialects must show; `columns` reads a view's columns as "name type" (type only on Postgres). */
function contractSuite(
  name: string,
  open: () => Promise<{ database: HooksyncDatabase; close(): Promise<void> }>,
) {
  describe(name, () => {
    let database: HooksyncDatabase;
    let close: () => Promise<void>;
    let db: Kysely<Database>;
    beforeAll(async () => {
      ({ database, close } = await open());
      db = database.db;
      await seedContractRows(db);
    });
    afterAll(async () => close?.());

    it('has the views and columns of the version it names, and no others', async () => {
      const { rows } = await sql<{ version: string }>`select version from hooksync_contract`.execute(db);
      expect(rows).toHaveLength(1);
      const expected = fixture.versions[rows[0]!.version];
      expect(expected, `version ${rows[0]?.version} is not in the fixture`).toBeDefined();
      const actual: ViewColumns = await viewColumns(database);
      const withTypes = database.dialect === 'postgres';
      const shown = (columns: readonly string[]) =>
        withTypes ? columns : columns.map((c) => c.split(' ')[0]);
      expect(Object.keys(actual).sort()).toEqual(Object.keys(expected!).sort());
      for (const [view, columns] of Object.entries(expected!))
        expect(actual[view], view).toEqual(shown(columns));
    });

    it('employment: one dated row per period, the next period closing the last, unknown closing nothing', async () => {
      const { rows } = await sql<Record<string, unknown>>`
        select * from hooksync_employment where person_key = 'https://www.linkedin.com/in/ada'
        order by valid_from`.execute(db);
      const iso = (v: unknown) => (v === null ? null : new Date(v as string).toISOString());
      expect(
        rows.map((r) => [
          r.company_domain,
          r.title,
          iso(r.valid_from),
          iso(r.valid_to),
          Boolean(r.is_current),
          Number(r.observations),
          r.watch,
        ]),
      ).toEqual([
        ['acme.example', null, '2026-01-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', false, 2, 'champions'],
        [
          'beta.example',
          'CTO',
          '2026-03-01T00:00:00.000Z',
          '2026-05-01T00:00:00.000Z',
          false,
          2,
          'champions',
        ],
        [null, null, '2026-05-01T00:00:00.000Z', null, true, 1, 'champions'],
      ]);
      const { rows: current } = await sql<{ person_key: string; n: number | string }>`
        select person_key, count(*) as n from hooksync_employment where is_current group by person_key`.execute(
        db,
      );
      expect(current.length).toBeGreaterThan(1);
      for (const row of current) expect(Number(row.n)).toBe(1);
    });

    it('deliveries: a row per event with its status, paused, the reason cut at 500 and the CRM record id', async () => {
      const { rows } = await sql<Record<string, unknown>>`
        select * from hooksync_deliveries order by event_id`.execute(db);
      const shown = rows.map((r) => ({
        destination: r.destination,
        event_kind: r.event_kind,
        status: r.status,
        reason: typeof r.last_reason === 'string' ? r.last_reason.length : null,
        record: r.crm_record_id,
        change: r.change_kind,
      }));
      expect(shown).toEqual([
        {
          destination: 'crm',
          event_kind: 'company_reveal',
          status: 'delivered',
          reason: null,
          record: '9001',
          change: null,
        },
        {
          destination: 'crm',
          event_kind: 'job_change',
          status: 'failed',
          reason: 500,
          record: null,
          change: null,
        },
        {
          destination: 'hook',
          event_kind: 'watch_change',
          status: 'paused',
          reason: null,
          record: null,
          change: 'moved',
        },
      ]);
      expect(String(rows[1]!.last_reason).startsWith('422 unprocessable: no such list')).toBe(true);
    });
  });
}

contractSuite('contract views on SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-contract-'));
  const path = join(dir, 'hooksync.db');
  const database = await openMigratedDatabase(path);
  return {
    database,
    async close() {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe.runIf(TEST_DATABASE_URL)(pgSuiteName('contract views on Postgres, in a named schema'), () => {
  let drop: () => Promise<void>;
  let url: string;
  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
  });
  afterAll(async () => drop?.());

  contractSuite('the views', async () => {
    const database = await openMigratedDatabase(withDatabaseSchema(url, SCHEMA));
    return { database, close: () => database.close() };
  });

  it('puts every table, view and the migration bookkeeping in the schema, nothing in public', async () => {
    const database = await openMigratedDatabase(withDatabaseSchema(url, SCHEMA));
    try {
      const { rows } = await sql<{ schema: string; n: string }>`
        select table_schema as schema, count(*) as n from information_schema.tables
        where table_schema in ('public', ${SCHEMA}) group by table_schema`.execute(database.db);
      expect(rows.map((r) => r.schema)).toEqual([SCHEMA]);
      const names = await sql<{ table_name: string }>`
        select table_name from information_schema.tables where table_schema = ${SCHEMA}`.execute(database.db);
      expect(names.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining(['kysely_migration', 'leases', 'outbox_events', 'hooksync_employment']),
      );
    } finally {
      await database.close();
    }
  });

  it.runIf(installed('psql'))('answers psql with the schema on its search_path', () => {
    const out = execFileSync(
      'psql',
      [
        '-At',
        '-c',
        `set search_path = ${SCHEMA}; select version from hooksync_contract; select count(*) from hooksync_employment where is_current`,
        url.replace(/\?.*$/, ''),
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim().split('\n').slice(-2)).toEqual([fixture.latest, expect.stringMatching(/^[1-9]\d*$/)]);
  });
});

describe.runIf(installed('sqlite3'))('contract views read by the sqlite3 client', () => {
  it('answers every view', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hooksync-contract-cli-'));
    const path = join(dir, 'hooksync.db');
    try {
      const database = await openMigratedDatabase(path);
      await seedContractRows(database.db);
      await database.close();
      const out = execFileSync(
        'sqlite3',
        [
          path,
          'select version from hooksync_contract; select count(*) from hooksync_employment where is_current; select count(*) from hooksync_deliveries;',
        ],
        { encoding: 'utf8' },
      );
      expect(out.trim().split('\n')).toEqual([fixture.latest, '3', '3']);
      expect(readFileSync(path).length).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

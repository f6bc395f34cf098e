/**
 * Upgrades: a database written before migration 008 (envelopes as text, persons with their experiences,
 * full companies rows) opens, migrates and reads every envelope back byte for byte, its queued job gets its
 * rows, exports read what moved into the envelope, and purge --person --include-jobs still finds the jobs.
 * SQLite: test/fixtures/upgrade/release-0.1.0.sqlite, written by that release (see the script beside it).
 * Postgres: the migrations before 008, then the same rows inserted, then the upgrade.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { computeBodyHash } from '../../../src/contract/webhook-signature.js';
import { exportRows } from '../../../src/export/export-rows.js';
import { loadTemplate } from '../../../src/export/load-template.js';
import { columnTypesFor } from '../../../src/storage/column-types.js';
import { getJob, listJobs } from '../../../src/storage/job-queries.js';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { jtiKey } from '../../../src/storage/job-store/jti-key.js';
import { normalizeAllQueuedJobs } from '../../../src/storage/job-store/normalization-queue.js';
import { migrateToLatest } from '../../../src/storage/migrate-to-latest.js';
import { MIGRATIONS } from '../../../src/storage/migrations/migration-provider.js';
import { type HooksyncDatabase, openDatabase } from '../../../src/storage/open-database.js';
import { purgePerson } from '../../../src/storage/purge-person.js';
import { listQuarantine } from '../../../src/storage/quarantine/list-quarantine.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';

const FIXTURE = new URL('../../fixtures/upgrade/release-0.1.0.sqlite', import.meta.url);
const EXPECTED: Record<string, string> = JSON.parse(
  readFileSync(new URL('../../fixtures/upgrade/release-0.1.0.expected.json', import.meta.url), 'utf8'),
);
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const BEFORE_008 = ['001_initial', '002_delivery_stats', '003_normalization_queue'];
/** The tables of the release, in an order that inserts cleanly. */
const OLD_TABLES = [
  'jobs',
  'deliveries',
  'quarantine',
  'persons',
  'companies',
  'job_changes',
  'expected_jobs',
  'normalization_queue',
];

const directory = mkdtempSync(join(tmpdir(), 'hooksync-upgrade-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** What every upgraded database must show, whatever its dialect. */
async function checkUpgraded(database: HooksyncDatabase): Promise<void> {
  const report = await migrateToLatest(database);
  expect(report.error).toBeUndefined();
  expect(report.applied).toEqual(Object.keys(MIGRATIONS).filter((name) => !BEFORE_008.includes(name)));

  const jobs = await listJobs(database.db);
  expect(new Map(jobs.map((job) => [job.job_id, job.envelope]))).toEqual(new Map(Object.entries(EXPECTED)));
  for (const job of jobs) expect(job.payload_hash, job.job_id).toBe(computeBodyHash(EXPECTED[job.job_id]!));
  expect(await getJob(database.db, id(10))).toMatchObject({ status: 'SUCCEEDED', revision: 2 });
  expect(await getJob(database.db, id(9))).toMatchObject({ kind: 'unknown' });

  // Migration 011 carried the release's replay guard over (one row per token, 11 of them, keyed by the
  // jti's hash): its tokens still read as replays, and a token it never saw still stores.
  const guard = await database.db.selectFrom('deliveries').selectAll().execute();
  expect(guard).toHaveLength(11);
  expect(guard.map((row) => Buffer.from(row.jti_key).toString('hex'))).toContain(
    jtiKey(`release-jti-${id(2)}`).toString('hex'),
  );
  const store = createJobStore({ database });
  try {
    const replayed = await store.store({
      envelopeText: EXPECTED[id(2)]!,
      source: 'webhook',
      jti: `release-jti-${id(2)}`,
    });
    expect(replayed.outcome).toBe('replay');
    const fresh = await store.store({ envelopeText: EXPECTED[id(2)]!, source: 'webhook', jti: 'after-011' });
    expect(fresh.outcome).toBe('duplicate');
  } finally {
    await store.close();
  }

  // The page queued before the upgrade gets its rows from the converted envelope.
  expect(await normalizeAllQueuedJobs(database)).toBe(1);
  const page = await database.db.selectFrom('persons').selectAll().where('job_id', '=', id(7)).execute();
  expect(page).toHaveLength(40);
  expect(page[0]).not.toHaveProperty('experiences');
  const companies = await database.db.selectFrom('companies').selectAll().orderBy('job_id').execute();
  expect(companies.map((c) => [c.job_id, c.name])).toEqual([
    [id(1), 'Acme Robotics'],
    [id(2), null],
    [id(8), 'Ørsted "A/S"'],
  ]);
  // Migration 007 gave the rows stored before it their job's input.task.custom_fields ('{}' when none).
  const carried = [
    ...companies.map((c) => c.custom_fields),
    ...(await database.db.selectFrom('persons').select('custom_fields').execute()).map(
      (p) => p.custom_fields,
    ),
  ];
  expect(carried.length).toBeGreaterThan(40);
  for (const value of carried) expect(JSON.parse(value ?? 'null')).toBeTypeOf('object');

  // Exports read what the rows no longer hold from the upgraded envelopes.
  const persons = await loadTemplate('persons');
  const template = {
    ...persons,
    dedupe: false,
    jobChangeStatuses: undefined,
    columns: [
      { header: 'job', field: 'job_id', transforms: [] },
      { header: 'title', field: 'experiences.0.title', transforms: [] },
      { header: 'about', field: 'about', transforms: [] },
    ],
  };
  const rows: string[][] = [];
  for await (const row of exportRows(database.db, template, { kind: 'search_contact' })) rows.push(row);
  const pageTitles = JSON.parse(EXPECTED[id(7)]!).output.persons.map(
    (p: { experiences: Array<{ title: string }> }) => p.experiences[0]?.title ?? '',
  );
  expect(rows.filter(([job]) => job === id(7)).map(([, title]) => title)).toEqual(pageTitles);
  const pageAbouts = JSON.parse(EXPECTED[id(7)]!).output.persons.map(
    (p: { about: string | null }) => p.about ?? '',
  );
  expect(rows.filter(([job]) => job === id(7)).map(([, , about]) => about)).toEqual(pageAbouts);
  const fixtureAbouts = rows.filter(([job]) => job === id(6)).map(([, , about]) => about);
  expect(fixtureAbouts).toEqual(
    JSON.parse(EXPECTED[id(6)]!).output.persons.map((p: { about: string | null }) => p.about ?? ''),
  );
  const revealTemplate = await loadTemplate('companies');
  const reveals: string[][] = [];
  for await (const row of exportRows(database.db, { ...revealTemplate, dedupe: false })) reveals.push(row);
  const fundingColumn = revealTemplate.columns.findIndex((c) => c.field === 'total_funding_usd');
  expect(reveals.map((row) => row[fundingColumn])).toContain('9007199254740993');

  const [quarantined] = await listQuarantine(database.db);
  // Migration 009 compressed the release's quarantined body; it reads back byte for byte.
  const releaseBody = '{"not":"trusted","linkedin":"https://www.linkedin.com/in/release-person-3"}';
  expect(quarantined?.body.toString('utf8')).toBe(releaseBody);
  expect(quarantined?.body_bytes).toBe(Buffer.byteLength(releaseBody));

  // purge --person --include-jobs still finds the page through its rows, and deletes it whole.
  const purged = await purgePerson(database, {
    linkedinUrl: 'https://www.linkedin.com/in/release-person-3/',
    includeJobs: true,
  });
  expect(purged.jobs_mentioning).toEqual([id(7)]);
  expect(purged.deleted).toMatchObject({ jobs: 1, persons: 40, quarantine: 1 });
  expect(await getJob(database.db, id(7))).toBeUndefined();
}

describe('upgrading a SQLite database written by the release before migration 008', () => {
  it('migrates, reads every envelope back byte for byte, and keeps exports and purge working', async () => {
    const file = join(directory, 'release.sqlite');
    copyFileSync(FIXTURE, file);
    const database = await openDatabase(file);
    try {
      await checkUpgraded(database);
      const columns = await sql<{ name: string }>`SELECT name FROM pragma_table_info('jobs')`.execute(
        database.db,
      );
      expect(columns.rows.map((c) => c.name)).not.toContain('envelope');
      const quarantineColumns = await sql<{
        name: string;
      }>`SELECT name FROM pragma_table_info('quarantine')`.execute(database.db);
      expect(quarantineColumns.rows.map((c) => c.name)).not.toContain('body');
    } finally {
      await database.close();
    }
  });
});

/** Applies only the migrations before 008, as the release did. */
async function migrateAsRelease(db: Kysely<unknown>): Promise<void> {
  const types = columnTypesFor('postgres');
  const migrations: Record<string, Migration> = {};
  for (const name of BEFORE_008) migrations[name] = { up: (d) => MIGRATIONS[name]!.up(d, types) };
  const result = await new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  }).migrateToLatest();
  if (result.error !== undefined) throw result.error;
}

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('upgrading a Postgres database of that release'), () => {
  it('migrates the same rows and reads them back the same way', async () => {
    const target = await createTestDatabase();
    const database = await openDatabase(target.url);
    const release = new Database(FIXTURE.pathname, { readonly: true });
    try {
      await migrateAsRelease(database.db as unknown as Kysely<unknown>);
      for (const table of OLD_TABLES) {
        const rows = release.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>;
        for (const row of rows) {
          await (database.db as unknown as Kysely<Record<string, Record<string, unknown>>>)
            .insertInto(table)
            .values(row)
            .execute();
        }
      }
      await checkUpgraded(database);
    } finally {
      release.close();
      await database.close();
      await target.drop();
    }
  });
});

/**
 * Test support for export suites: a migrated database (a SQLite file in a temp folder, or a fresh
 * Postgres database) filled through the real job store with the fixture envelopes of
 * test/fixtures/export/envelopes, one minute apart on an injected clock.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { migrateToLatest } from '../../../src/storage/migrate-to-latest.js';
import { type HooksyncDatabase, openDatabase } from '../../../src/storage/open-database.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/** The fixture folder of the export suites. */
export const EXPORT_FIXTURES = fileURLToPath(new URL('../../fixtures/export/', import.meta.url));
/** The instant the first fixture envelope is stored at; each next one a minute later. */
export const FIXTURE_START_MS = Date.parse('2026-03-10T08:00:00.000Z');
export const FIXTURE_STEP_MS = 60_000;

/** An open, migrated database and how to dispose of it. */
export interface ExportTestDatabase {
  readonly database: HooksyncDatabase;
  /** A scratch folder for output files. */
  readonly dir: string;
  dispose(): Promise<void>;
}

/** Opens a fresh database: SQLite by default, Postgres when `dialect` says so. */
export async function openExportTestDatabase(
  dialect: 'sqlite' | 'postgres' = 'sqlite',
): Promise<ExportTestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-export-'));
  let dropPostgres: (() => Promise<void>) | undefined;
  let url = join(dir, 'hooksync.db');
  if (dialect === 'postgres') {
    const pg = await createTestDatabase();
    url = pg.url;
    dropPostgres = pg.drop;
  }
  const database = await openDatabase(url, { poolSize: 2 });
  const report = await migrateToLatest(database);
  if (report.error !== undefined) throw report.error;
  return {
    database,
    dir,
    async dispose() {
      await database.close();
      await dropPostgres?.();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The fixture envelopes' texts, in file-name order. */
export async function readFixtureEnvelopes(): Promise<Array<{ name: string; text: string }>> {
  const folder = join(EXPORT_FIXTURES, 'envelopes');
  const names = (await readdir(folder)).filter((n) => n.endsWith('.json')).sort();
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(join(folder, name), 'utf8') })));
}

/** Stores envelopes through the job store, the i-th at `startMs + i * FIXTURE_STEP_MS`. */
export async function storeEnvelopes(
  database: HooksyncDatabase,
  texts: readonly string[],
  startMs: number = FIXTURE_START_MS,
): Promise<void> {
  let nowMs = startMs;
  const store = createJobStore({ database, now: () => nowMs });
  try {
    for (const text of texts) {
      const result = await store.store({ envelopeText: text, source: 'webhook' });
      if (result.outcome !== 'stored' && result.outcome !== 'updated') {
        throw new Error(`fixture not stored: ${result.job_id} ${result.outcome}`);
      }
      nowMs += FIXTURE_STEP_MS;
    }
  } finally {
    await store.close();
  }
}

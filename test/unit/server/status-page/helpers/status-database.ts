/**
 * A migrated database for the status page's tests (a SQLite file in a temp dir, or a fresh Postgres
 * database), plus seeded rows of every table the page reads, hostile text included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { createEmptyCounts, type ReconcileReport } from '../../../../../src/reconcile/reconcile-report.js';
import type { Database } from '../../../../../src/storage/database.js';
import { migrateToLatest } from '../../../../../src/storage/migrate-to-latest.js';
import { type HooksyncDatabase, openDatabase } from '../../../../../src/storage/open-database.js';
import { quarantineBodyColumns } from '../../../../../src/storage/quarantine/quarantine-body.js';
import { createTestDatabase } from '../../../../helpers/postgres.js';

/** An open database for one test file. */
export interface StatusDatabase {
  readonly database: HooksyncDatabase;
  cleanup(): Promise<void>;
}

async function prepare(url: string, cleanupAfter: () => Promise<void>): Promise<StatusDatabase> {
  const database = await openDatabase(url);
  try {
    const report = await migrateToLatest(database);
    if (report.error !== undefined) throw report.error;
    return {
      database,
      async cleanup() {
        await database.close();
        await cleanupAfter();
      },
    };
  } catch (error) {
    await database.close();
    await cleanupAfter();
    throw error;
  }
}

/** A SQLite file in its own temp directory. */
export async function createStatusSqlite(): Promise<StatusDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-status-'));
  return prepare(join(dir, 'hooksync.db'), async () => rmSync(dir, { recursive: true, force: true }));
}

/** A fresh Postgres database (needs TEST_DATABASE_URL). */
export async function createStatusPostgres(): Promise<StatusDatabase> {
  const created = await createTestDatabase();
  return prepare(created.url, created.drop);
}

/** The instant every seeded row is relative to: 2026-11-22 21:37 UTC. */
export const SEED_NOW = Date.UTC(2026, 10, 22, 21, 37, 0);
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const hour = (hoursAgo: number) => iso(Math.floor(SEED_NOW / HOUR) * HOUR - hoursAgo * HOUR);

/** Hostile text planted in the quarantine: if any of it runs or renders as markup, escaping failed. */
export const HOSTILE = Object.freeze({
  reason: '<script>window.__pwned = "reason"</script>',
  detail: '"><img src=x onerror="window.__pwned=\'detail\'">',
  claimedJobId: "</code><b id='injected'>bold</b>",
  body: '{"status":"</code></td><script>window.__pwned = "body"</script>","x":1}',
});

/** Ids and counts the tests assert on. */
export const SEEDED = Object.freeze({
  pendingJobId: '0b9c5f7e-1d2a-4c3b-8e4f-5a6b7c8d9e0f',
  notFoundJobId: '1c0d6e8f-2e3b-4d4c-9f5a-6b7c8d9e0f1a',
  quarantineTotal: 4,
  /** delivery_stats: the current hour, 5 hours ago, and one row outside the 24-hour window. */
  currentHour: hour(0),
  currentHourStored: 12,
  currentHourRefused: 3,
  fiveHoursAgo: hour(5),
  fiveHoursAgoStored: 40,
  fiveHoursAgoRetryLater: 2,
  outsideWindowStored: 999,
  runRecovered: 7,
});

function report(partial: Partial<ReconcileReport>): string {
  const full: ReconcileReport = {
    ...createEmptyCounts(),
    status: 'completed',
    run_id: 'run',
    holder: 'host:1:abc',
    started_at: iso(SEED_NOW - 4 * HOUR),
    finished_at: iso(SEED_NOW - 4 * HOUR + 65_000),
    older_than_ms: 3_600_000,
    limit: undefined,
    pacing: [{ perInterval: 50, intervalSeconds: 60 }],
    ...partial,
  };
  return JSON.stringify(full);
}

/** Fills every table the page reads. */
export async function seedStatusData(db: Kysely<Database>): Promise<void> {
  const quarantine = [
    {
      reason: 'SIGNATURE_EXPIRED',
      detail: 'exp was 20 min ago',
      claimed: SEEDED.pendingJobId,
      body: '{"status":"SUCCEEDED"}',
    },
    { reason: 'SIGNATURE_EXPIRED', detail: null, claimed: null, body: '{"a":1}' },
    { reason: 'BODY_HASH_MISMATCH', detail: 'body_hash differs', claimed: null, body: 'x'.repeat(5000) },
    { reason: HOSTILE.reason, detail: HOSTILE.detail, claimed: HOSTILE.claimedJobId, body: HOSTILE.body },
  ];
  await db
    .insertInto('quarantine')
    .values(
      quarantine.map((q, i) => ({
        id: `q${i}`,
        reason: q.reason,
        detail: q.detail,
        claimed_job_id: q.claimed,
        kind: i === 0 ? ('job_change' as const) : null,
        content_type: 'application/json',
        ...quarantineBodyColumns(Buffer.from(q.body, 'utf8')),
        received_at: iso(SEED_NOW - (10 - i) * 60_000),
      })),
    )
    .execute();

  const entry = (job_id: string, state: 'pending' | 'received' | 'not_found' | 'failed', i: number) => ({
    job_id,
    kind: 'job_change' as const,
    state,
    origin: 'track' as const,
    attempts: state === 'pending' ? 2 : 1,
    next_attempt_at: state === 'pending' ? iso(SEED_NOW + HOUR) : null,
    last_error: state === 'pending' ? 'INTERNAL_UNCLASSIFIED_ERROR (HTTP 500)' : null,
    created_at: iso(SEED_NOW - (48 - i) * HOUR),
    updated_at: iso(SEED_NOW - HOUR),
  });
  await db
    .insertInto('expected_jobs')
    .values([
      entry(SEEDED.pendingJobId, 'pending', 0),
      entry(SEEDED.notFoundJobId, 'not_found', 1),
      entry('2d1e7f90-3f4c-4e5d-8a6b-7c8d9e0f1a2b', 'received', 2),
      entry('3e2f8091-4a5d-4f6e-9b7c-8d9e0f1a2b3c', 'received', 3),
      entry('4f3091a2-5b6e-4a7f-8c8d-9e0f1a2b3c4d', 'failed', 4),
    ])
    .execute();

  await db
    .insertInto('reconcile_runs')
    .values([
      {
        id: 'run-1',
        holder: 'host:1:abc',
        started_at: iso(SEED_NOW - 28 * HOUR),
        finished_at: iso(SEED_NOW - 28 * HOUR + 5000),
        status: 'completed',
        report: report({ checked: 3, fetched: 3, already_received: 3, duration_ms: 5000 }),
      },
      {
        id: 'run-2',
        holder: 'host:1:def',
        started_at: iso(SEED_NOW - 4 * HOUR),
        finished_at: iso(SEED_NOW - 4 * HOUR + 65_000),
        status: 'completed',
        report: report({
          checked: 11,
          fetched: 9,
          recovered: SEEDED.runRecovered,
          not_found: 1,
          duration_ms: 65_000,
        }),
      },
    ])
    .execute();

  await db
    .insertInto('export_cursors')
    .values([
      {
        template: 'hubspot-contacts',
        cursor: iso(SEED_NOW - 2 * HOUR),
        rows: 321,
        updated_at: iso(SEED_NOW - 2 * HOUR),
      },
      {
        template: 'generic-csv:company_reveal',
        cursor: iso(SEED_NOW - 30 * HOUR),
        rows: 5,
        updated_at: iso(SEED_NOW - 30 * HOUR),
      },
    ])
    .execute();

  await db
    .insertInto('delivery_stats')
    .values([
      { hour: SEEDED.currentHour, outcome: 'stored', count: SEEDED.currentHourStored },
      { hour: SEEDED.currentHour, outcome: 'refused', count: SEEDED.currentHourRefused },
      { hour: SEEDED.fiveHoursAgo, outcome: 'stored', count: SEEDED.fiveHoursAgoStored },
      { hour: SEEDED.fiveHoursAgo, outcome: 'retry_later', count: SEEDED.fiveHoursAgoRetryLater },
      { hour: hour(24), outcome: 'stored', count: SEEDED.outsideWindowStored },
    ])
    .execute();
}

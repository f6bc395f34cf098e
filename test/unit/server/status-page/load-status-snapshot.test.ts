/**
 * What the page reads, on a real SQLite file and (with TEST_DATABASE_URL) a real Postgres database:
 * the 24-hour window, the quarantine's reasons and body prefixes, the ledger, runs and cursors, and a
 * section that cannot be read does not take the others down.
 */
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hourBucketOf, loadDeliveryStats } from '../../../../src/receiver/load-delivery-stats.js';
import { loadStatusSnapshot } from '../../../../src/server/status-page/load-status-snapshot.js';
import { quarantineBodyColumns } from '../../../../src/storage/quarantine/quarantine-body.js';
import { pgSuiteName, TEST_DATABASE_URL } from '../../../helpers/postgres.js';
import {
  createStatusPostgres,
  createStatusSqlite,
  HOSTILE,
  SEED_NOW,
  SEEDED,
  type StatusDatabase,
  seedStatusData,
} from './helpers/status-database.js';

function suite(open: () => Promise<StatusDatabase>): void {
  let temp: StatusDatabase;
  beforeAll(async () => {
    temp = await open();
    await seedStatusData(temp.database.db);
  });
  afterAll(async () => {
    await temp?.cleanup();
  });

  it('reads 24 hour buckets ending with the current one, leaving older rows out', async () => {
    const stats = await loadDeliveryStats(temp.database.db, SEED_NOW);
    expect(stats.hours).toHaveLength(24);
    expect(stats.hours[23]?.hour).toBe(SEEDED.currentHour);
    expect(stats.hours[23]?.counts).toEqual({
      stored: SEEDED.currentHourStored,
      refused: SEEDED.currentHourRefused,
    });
    expect(stats.hours[18]).toMatchObject({
      hour: SEEDED.fiveHoursAgo,
      total: SEEDED.fiveHoursAgoStored + SEEDED.fiveHoursAgoRetryLater,
    });
    expect(stats.totals).toEqual({
      stored: SEEDED.currentHourStored + SEEDED.fiveHoursAgoStored,
      refused: SEEDED.currentHourRefused,
      retry_later: SEEDED.fiveHoursAgoRetryLater,
    });
  });

  it('reads no body content unless asked: ids, reasons and sizes only', async () => {
    const snapshot = await loadStatusSnapshot({ db: temp.database.db, now: new Date(SEED_NOW) });
    if (!snapshot.quarantine.ok) throw new Error('the quarantine could not be read');
    expect(snapshot.quarantine.value.bodies).toBe(false);
    expect(snapshot.quarantine.value.latest.map((e) => e.id)).toEqual(['q3', 'q2', 'q1', 'q0']);
    for (const entry of snapshot.quarantine.value.latest) {
      expect(entry.bodyPreview).toBeUndefined();
      expect(entry.bodyBytes).toBeGreaterThan(0);
    }
  });

  it('reads every section', async () => {
    const snapshot = await loadStatusSnapshot({
      db: temp.database.db,
      now: new Date(SEED_NOW),
      bodies: true,
    });
    expect(snapshot.generatedAt).toBe(new Date(SEED_NOW).toISOString());
    if (
      !snapshot.quarantine.ok ||
      !snapshot.ledger.ok ||
      !snapshot.runs.ok ||
      !snapshot.cursors.ok ||
      !snapshot.deliveries.ok
    ) {
      throw new Error('a section could not be read');
    }
    const q = snapshot.quarantine.value;
    expect(q.total).toBe(SEEDED.quarantineTotal);
    expect(q.reasons[0]).toEqual({ reason: 'SIGNATURE_EXPIRED', count: 2 });
    expect(q.latest.map((e) => e.id)).toEqual(['q3', 'q2', 'q1', 'q0']);
    expect(q.latest[0]).toMatchObject({
      reason: HOSTILE.reason,
      bodyPreview: HOSTILE.body,
      bodyBytes: Buffer.byteLength(HOSTILE.body),
    });
    // Only a prefix of a long body is read.
    expect(q.latest[1]?.bodyBytes).toBe(5000);
    expect(q.latest[1]?.bodyPreview?.length).toBeLessThan(300);

    const ledger = snapshot.ledger.value;
    expect(ledger.counts).toEqual({ pending: 1, received: 2, not_found: 1, failed: 1 });
    expect(ledger.pending.map((e) => e.job_id)).toEqual([SEEDED.pendingJobId]);
    expect(ledger.notFound.map((e) => e.job_id)).toEqual([SEEDED.notFoundJobId]);

    expect(snapshot.runs.value.map((r) => r.id)).toEqual(['run-2', 'run-1']);
    expect(snapshot.runs.value[0]?.report?.recovered).toBe(SEEDED.runRecovered);
    expect(snapshot.cursors.value.map((c) => c.template)).toEqual([
      'generic-csv:company_reveal',
      'hubspot-contacts',
    ]);
    expect(snapshot.cursors.value[1]?.rows).toBe(321);
  });

  it('cuts a body prefix without splitting a character', async () => {
    const body = Buffer.from(`${'a'.repeat(239)}é and more`, 'utf8');
    await temp.database.db
      .insertInto('quarantine')
      .values({
        id: 'zz-utf8',
        reason: 'BODY_MALFORMED_JSON',
        detail: null,
        claimed_job_id: null,
        kind: null,
        content_type: null,
        ...quarantineBodyColumns(body),
        received_at: new Date(SEED_NOW).toISOString(),
      })
      .execute();
    const snapshot = await loadStatusSnapshot({
      db: temp.database.db,
      now: new Date(SEED_NOW),
      bodies: true,
    });
    const entry = snapshot.quarantine.ok
      ? snapshot.quarantine.value.latest.find((e) => e.id === 'zz-utf8')
      : undefined;
    expect(entry?.bodyPreview).toBe('a'.repeat(239));
    await temp.database.db.deleteFrom('quarantine').where('id', '=', 'zz-utf8').execute();
  });
}

describe('status snapshot on SQLite', () => {
  suite(createStatusSqlite);

  it('shows a section it cannot read as unavailable and still reads the others', async () => {
    const temp = await createStatusSqlite();
    try {
      await seedStatusData(temp.database.db);
      await sql`drop table delivery_stats`.execute(temp.database.db);
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      const snapshot = await loadStatusSnapshot({ db: temp.database.db, now: new Date(SEED_NOW), logger });
      expect(snapshot.deliveries.ok).toBe(false);
      expect(snapshot.quarantine.ok && snapshot.ledger.ok && snapshot.runs.ok && snapshot.cursors.ok).toBe(
        true,
      );
      expect(lines.map((l) => JSON.parse(l) as { level: number; section: string })).toEqual([
        expect.objectContaining({ level: 50, section: 'deliveries' }),
      ]);
    } finally {
      await temp.cleanup();
    }
  });

  it('hourBucketOf floors to the hour', () => {
    expect(hourBucketOf(Date.UTC(2026, 10, 22, 21, 59, 59, 999))).toBe('2026-11-22T21:00:00.000Z');
  });
});

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('status snapshot on Postgres'), () => {
  suite(createStatusPostgres);
});

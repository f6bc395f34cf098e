/**
 * Migration 021 (issue 43): rows an earlier build let a 429's `policyName` grow are cleaned: the counter rows
 * named after it fold into `rate_limited_unknown`, error texts are cut to the bound. SQLite and Postgres.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { up } from '../../../src/storage/migrations/021-bounded-outside-text.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';

const AT = '2026-11-28T00:00:00.000Z';
/** A grown counter name: on Postgres the key's index holds at most 2,704 bytes (a longer one was never written). */
const GROWN = `rate_limited_${randomBytes(1200).toString('hex')}`;

async function check(url: string): Promise<void> {
  const database = await openMigratedDatabase(url);
  try {
    const { db } = database;
    // What the earlier build wrote after three hostile 429s and one genuine one.
    await db
      .insertInto('destination_counters')
      .values([
        { destination: 'crm', counter: GROWN, value: 1, updated_at: AT },
        { destination: 'crm', counter: `${GROWN}y`, value: 2, updated_at: AT },
        { destination: 'crm', counter: 'rate_limited_unknown', value: 4, updated_at: AT },
        { destination: 'crm', counter: 'rate_limited_ten_secondly_rolling', value: 8, updated_at: AT },
        { destination: 'crm', counter: 'api_calls', value: 16, updated_at: AT },
        { destination: 'other', counter: GROWN, value: 1, updated_at: AT },
      ])
      .execute();
    await db
      .insertInto('destinations')
      .values({
        name: 'crm',
        type: 'hubspot',
        active: 1,
        paused_at: null,
        pause_reason: 'p'.repeat(600),
        last_error: `HubSpot TEN limit reached: ${'e'.repeat(1024 * 1024)}`,
        last_error_at: AT,
        updated_at: AT,
      })
      .execute();
    await up(db as never);
    const counters = await db
      .selectFrom('destination_counters')
      .select(['destination', 'counter', 'value'])
      .orderBy('destination')
      .orderBy('counter')
      .execute();
    expect(counters.map((row) => [row.destination, row.counter, Number(row.value)])).toEqual([
      ['crm', 'api_calls', 16],
      ['crm', 'rate_limited_ten_secondly_rolling', 8],
      ['crm', 'rate_limited_unknown', 7],
      ['other', 'rate_limited_unknown', 1],
    ]);
    const row = await db.selectFrom('destinations').selectAll().executeTakeFirstOrThrow();
    expect(row.last_error).toHaveLength(500);
    expect(row.last_error!.endsWith('…')).toBe(true);
    expect(row.last_error!.startsWith('HubSpot TEN limit reached: eee')).toBe(true);
    expect(row.pause_reason).toHaveLength(500);
  } finally {
    await database.close();
  }
}

describe('migration 021 (bounded outside text)', () => {
  it('cleans grown counter rows and texts on SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hooksync-m021-'));
    try {
      await check(join(dir, 'hooksync.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!TEST_DATABASE_URL)(pgSuiteName('cleans grown counter rows and texts on Postgres'), async () => {
    const { url, drop } = await createTestDatabase();
    try {
      await check(url);
    } finally {
      await drop();
    }
  });
});

/** A destination's running totals: added to by every replica, set for a gauge, described in one line. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeCounters,
  readCounters,
  recordCounters,
} from '../../../src/destinations/destination-counters.js';
import { renderDestinations } from '../../../src/server/status-page/render-destinations.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';

describe('destination counters', () => {
  let dir: string;
  let database: HooksyncDatabase;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-counters-'));
    database = await openMigratedDatabase(join(dir, 'c.db'));
  });
  afterEach(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds increments (two replicas), sets gauges, and keeps destinations apart', async () => {
    const at = '2026-11-25T00:00:00.000Z';
    await recordCounters(database.db, 'crm', { increments: { api_calls: 3, companies_created: 2 } }, at);
    await recordCounters(
      database.db,
      'crm',
      { increments: { api_calls: 4, companies_created: 0 }, gauges: { daily_remaining: 249_993 } },
      at,
    );
    await recordCounters(database.db, 'crm', { increments: {}, gauges: { daily_remaining: 249_990 } }, at);
    await recordCounters(database.db, 'other', { increments: { api_calls: 1 } }, at);
    const counters = await readCounters(database.db);
    expect(counters.get('crm')).toEqual({ api_calls: 7, companies_created: 2, daily_remaining: 249_990 });
    expect(counters.get('other')).toEqual({ api_calls: 1 });
  });

  it('describes them in one line, which the status page shows under the row', () => {
    const counters = {
      companies_created: 3,
      companies_updated: 1,
      contacts_failed: 2,
      api_calls: 9,
      rate_limited_ten_secondly_rolling: 1,
      rate_limited_daily: 0,
      daily_remaining: 249_991,
    };
    const line =
      'companies 3 created, 1 updated; contacts 2 failed; 9 API calls; 429s: ten_secondly_rolling 1; daily allowance left 249991';
    expect(describeCounters(counters)).toBe(line);
    expect(describeCounters({})).toBe('');
    const page = String(
      renderDestinations([
        {
          name: 'crm',
          type: 'hubspot',
          active: true,
          paused: false,
          paused_until: null,
          pending: 0,
          delivered: 4,
          failed: 2,
          oldest_pending_age_seconds: null,
          last_error: null,
          last_error_at: null,
          counters,
        },
      ]),
    );
    expect(page).toContain(line);
  });
});

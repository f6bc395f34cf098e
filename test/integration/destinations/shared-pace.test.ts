/**
 * The shared pace of a destination's calls: two processes' connections to one database reserve slots
 * concurrently, and the rate holds across both (no window of `perMs` holds more than `requests` slots).
 * SQLite file and Postgres (skipped, with the reason, when TEST_DATABASE_URL is unset).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createSharedPace,
  MAX_SLOTS_PER_RESERVATION,
  reserveCallSlot,
} from '../../../src/destinations/shared-pace.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'hooksync-pace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The most slots found in any window of `perMs` that starts at a slot. */
function busiestWindow(slots: readonly number[], perMs: number): number {
  const sorted = [...slots].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + perMs) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

function definePaceSuite(provision: () => Promise<{ url: string; drop: () => Promise<void> }>): void {
  it('spaces the calls of two processes so that no window holds more than the rate', async () => {
    const { url, drop } = await provision();
    const databases: HooksyncDatabase[] = [];
    try {
      databases.push(await openMigratedDatabase(url), await openMigratedDatabase(url));
      const now = () => Date.UTC(2026, 10, 25, 12); // a stopped clock: every slot comes from the row alone
      const reserve = (database: HooksyncDatabase) => reserveCallSlot(database.db, 'crm', 112, now);
      const slots = await Promise.all(Array.from({ length: 60 }, (_, i) => reserve(databases[i % 2]!)));
      expect(new Set(slots).size).toBe(60);
      const sorted = [...slots].sort((a, b) => a - b);
      expect(sorted[0]).toBe(now());
      for (let i = 1; i < sorted.length; i += 1) expect(sorted[i]! - sorted[i - 1]!).toBe(112);
      // 90 per 10 s spaced at 112 ms: at most 90 slots in any 10 s.
      expect(busiestWindow(slots, 10_000)).toBeLessThanOrEqual(90);
      // Another destination has a pace of its own.
      expect(await reserveCallSlot(databases[0]!.db, 'other', 112, now)).toBe(now());
    } finally {
      for (const database of databases) await database.close();
      await drop();
    }
  });

  it('reserves a block of slots per round trip, hands them out in order, and drops those that passed', async () => {
    const { url, drop } = await provision();
    const database = await openMigratedDatabase(url);
    try {
      const start = Date.UTC(2026, 10, 25, 12);
      let clock = start;
      // 100 per 10 s: 100 ms apart, ten slots (one second) per reservation.
      const pace = createSharedPace(database.db, 'crm', { requests: 100, perMs: 10_000 }, () => clock);
      const rowAt = async () =>
        Date.parse(
          (
            await database.db
              .selectFrom('destination_pace')
              .select('next_at')
              .where('destination', '=', 'crm')
              .executeTakeFirstOrThrow()
          ).next_at,
        );
      const signal = new AbortController().signal;
      // Each call made at its slot's time goes at once (no sleep); the row moved once for ten calls.
      for (let i = 0; i < MAX_SLOTS_PER_RESERVATION; i += 1) {
        clock = start + i * 100;
        await pace.wait(signal);
        expect(await rowAt()).toBe(start + MAX_SLOTS_PER_RESERVATION * 100);
      }
      clock = start + MAX_SLOTS_PER_RESERVATION * 100;
      await pace.wait(signal);
      expect(await rowAt()).toBe(start + 2 * MAX_SLOTS_PER_RESERVATION * 100);
      // Idle past the block: its unused slots are dropped, the next call reserves anew from now.
      clock = start + 60_000;
      await pace.wait(signal);
      expect(await rowAt()).toBe(clock + MAX_SLOTS_PER_RESERVATION * 100);
      // Another process's reservation starts after this one's block.
      expect(await reserveCallSlot(database.db, 'crm', 100, () => clock)).toBe(
        clock + MAX_SLOTS_PER_RESERVATION * 100,
      );
    } finally {
      await database.close();
      await drop();
    }
  });

  it('lets a call go at once when the destination was idle, and waits out a reserved slot otherwise', async () => {
    const { url, drop } = await provision();
    const database = await openMigratedDatabase(url);
    try {
      // A clock the test moves, so that the machine's load cannot make a slot pass: a call given an aborted
      // signal goes only if it has nothing to wait for.
      let clock = Date.UTC(2026, 10, 25, 12);
      const pace = createSharedPace(database.db, 'crm', { requests: 10, perMs: 1_000 }, () => clock);
      await pace.wait(AbortSignal.abort());
      // The next slot of this process's block is 100 ms away: the call waits for it, until it is due.
      await expect(pace.wait(AbortSignal.abort())).rejects.toThrow(/abort/i);
      clock += 200;
      await pace.wait(AbortSignal.abort());
      // Twenty slots taken by others after this process's block: its next held slot is 100 ms away, and
      // the call gives up when its signal aborts first.
      for (let i = 0; i < 20; i += 1) await reserveCallSlot(database.db, 'crm', 100, () => clock);
      await expect(pace.wait(AbortSignal.timeout(20))).rejects.toThrow(/timeout|abort/i);
    } finally {
      await database.close();
      await drop();
    }
  });
}

describe('shared pace on SQLite', () => {
  let n = 0;
  definePaceSuite(async () => ({ url: join(dir, `pace-${++n}.db`), drop: async () => {} }));
});

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('shared pace on Postgres'), () => {
  definePaceSuite(createTestDatabase);
});

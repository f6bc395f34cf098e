/**
 * The single-runner lease on both dialects: one winner among concurrent contenders (separate
 * connections, as separate processes would have), takeover only after expiry, renewal, release.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireLease,
  createLeaseHolderId,
  readLease,
  releaseLease,
  renewLease,
} from '../../../../src/storage/leases/acquire-lease.js';
import { openDatabase } from '../../../../src/storage/open-database.js';
import { pgSuiteName, TEST_DATABASE_URL } from '../../../helpers/postgres.js';
import {
  createTempPostgres,
  createTempSqlite,
  type TempDatabase,
} from '../../reconcile/helpers/temp-database.js';

const T0 = Date.UTC(2026, 0, 5, 3, 0, 0);
const TTL = 60_000;

function leaseSuite(name: string, create: () => Promise<TempDatabase>): void {
  let temp: TempDatabase;
  let n = 0;
  const lease = () => `lease-${++n}`;
  beforeAll(async () => {
    temp = await create();
  });
  afterAll(async () => {
    await temp.cleanup();
  });

  describe(name, () => {
    it('is taken when free, refused to another holder with the holder named, retaken by its holder', async () => {
      const db = temp.database.db;
      const name = lease();
      expect(await acquireLease(db, { name, holder: 'a', ttlMs: TTL, nowMs: T0 })).toEqual({
        acquired: true,
        holder: 'a',
        expiresAt: new Date(T0 + TTL).toISOString(),
      });
      expect(await acquireLease(db, { name, holder: 'b', ttlMs: TTL, nowMs: T0 + TTL - 1 })).toEqual({
        acquired: false,
        holder: 'a',
        expiresAt: new Date(T0 + TTL).toISOString(),
      });
      expect((await acquireLease(db, { name, holder: 'a', ttlMs: TTL, nowMs: T0 + 10 })).acquired).toBe(true);
    });

    it('passes to another holder once expired; the old holder can no longer renew', async () => {
      const db = temp.database.db;
      const name = lease();
      await acquireLease(db, { name, holder: 'a', ttlMs: TTL, nowMs: T0 });
      const later = await acquireLease(db, { name, holder: 'b', ttlMs: TTL, nowMs: T0 + TTL + 1 });
      expect(later.acquired).toBe(true);
      expect(await renewLease(db, { name, holder: 'a', ttlMs: TTL, nowMs: T0 + TTL + 2 })).toBe(false);
      expect(await renewLease(db, { name, holder: 'b', ttlMs: TTL, nowMs: T0 + TTL + 2 })).toBe(true);
      expect((await readLease(db, name))?.expires_at).toBe(new Date(T0 + 2 * TTL + 2).toISOString());
    });

    it('renewal keeps others out past the first expiry', async () => {
      const db = temp.database.db;
      const name = lease();
      await acquireLease(db, { name, holder: 'a', ttlMs: TTL, nowMs: T0 });
      expect(await renewLease(db, { name, holder: 'a', ttlMs: TTL, nowMs: T0 + TTL / 2 })).toBe(true);
      expect((await acquireLease(db, { name, holder: 'b', ttlMs: TTL, nowMs: T0 + TTL + 1 })).acquired).toBe(
        false,
      );
    });

    it('release frees it at once, and only for its holder', async () => {
      const db = temp.database.db;
      const name = lease();
      await acquireLease(db, { name, holder: 'a', ttlMs: TTL, nowMs: T0 });
      await releaseLease(db, { name, holder: 'b' });
      expect((await readLease(db, name))?.holder).toBe('a');
      await releaseLease(db, { name, holder: 'a' });
      expect(await readLease(db, name)).toBeUndefined();
      expect((await acquireLease(db, { name, holder: 'b', ttlMs: TTL, nowMs: T0 + 1 })).acquired).toBe(true);
    });

    it('has exactly one winner among contenders on separate connections', async () => {
      const others = await Promise.all([
        openDatabase(temp.url),
        openDatabase(temp.url),
        openDatabase(temp.url),
      ]);
      try {
        for (let round = 0; round < 5; round++) {
          const name = lease();
          const dbs = [temp.database.db, ...others.map((o) => o.db)];
          const results = await Promise.all(
            dbs.flatMap((db, i) =>
              [0, 1].map((j) => acquireLease(db, { name, holder: `h${i}-${j}`, ttlMs: TTL, nowMs: T0 })),
            ),
          );
          const winners = results.filter((r) => r.acquired);
          expect(winners).toHaveLength(1);
          for (const loser of results.filter((r) => !r.acquired))
            expect(loser.holder).toBe(winners[0]!.holder);
        }
      } finally {
        await Promise.all(others.map((o) => o.close()));
      }
    });
  });
}

describe('createLeaseHolderId', () => {
  it('is hostname:pid:random, different each time', () => {
    const a = createLeaseHolderId();
    expect(a).toMatch(new RegExp(`^[^:]+:${process.pid}:[0-9a-f]{8}$`));
    expect(createLeaseHolderId()).not.toBe(a);
  });
});

describe('lease on SQLite', () => {
  leaseSuite('SQLite', createTempSqlite);
});

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('lease on Postgres'), () => {
  leaseSuite('Postgres', createTempPostgres);
});

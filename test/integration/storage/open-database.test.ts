/** openDatabase on real SQLite files and a real Postgres server. */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/errors.js';
import { CachedSqliteDatabase } from '../../../src/storage/job-store/cached-sqlite-database.js';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { migrateToLatest } from '../../../src/storage/migrate-to-latest.js';
import { MIGRATIONS } from '../../../src/storage/migrations/migration-provider.js';
import { isPostgresUrl, openDatabase } from '../../../src/storage/open-database.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { companyRevealText, testUuid } from '../../unit/storage/envelope-texts.js';

const directory = mkdtempSync(join(tmpdir(), 'hooksync-open-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function pragma(database: Awaited<ReturnType<typeof openDatabase>>, name: string): Promise<unknown> {
  const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(database.db);
  return Object.values(rows[0] ?? {})[0];
}

describe('openDatabase on SQLite', () => {
  it('opens a file with WAL, FULL sync, busy timeout and foreign keys', async () => {
    const database = await openDatabase(join(directory, 'a.db'));
    try {
      expect(database.dialect).toBe('sqlite');
      expect(await pragma(database, 'journal_mode')).toBe('wal');
      expect(await pragma(database, 'synchronous')).toBe(2);
      expect(await pragma(database, 'busy_timeout')).toBe(5000);
      expect(await pragma(database, 'foreign_keys')).toBe(1);
    } finally {
      await database.close();
      await database.close();
    }
  });

  it('takes NORMAL sync and another busy timeout when asked', async () => {
    const database = await openDatabase(join(directory, 'b.db'), {
      synchronous: 'NORMAL',
      busyTimeoutMs: 250,
    });
    try {
      expect(await pragma(database, 'synchronous')).toBe(1);
      expect(await pragma(database, 'busy_timeout')).toBe(250);
    } finally {
      await database.close();
    }
  });

  it('says clearly when the directory does not exist', async () => {
    const missing = join(directory, 'no-such-dir', 'x.db');
    const error = await openDatabase(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ transient: false, code: 'STORAGE_FAILED' });
    expect((error as Error).message).toContain(join(directory, 'no-such-dir'));
  });

  it('refuses bad options with a TypeError', async () => {
    await expect(openDatabase('')).rejects.toThrow(TypeError);
    await expect(openDatabase(join(directory, 'c.db'), { busyTimeoutMs: -1 })).rejects.toThrow(TypeError);
    await expect(openDatabase(join(directory, 'c.db'), { synchronous: 'OFF' as never })).rejects.toThrow(
      TypeError,
    );
  });

  it('opens :memory: for throwaway use', async () => {
    const database = await openDatabase(':memory:');
    try {
      expect((await migrateToLatest(database)).applied).toEqual(Object.keys(MIGRATIONS));
    } finally {
      await database.close();
    }
  });

  it('answers transient when another process holds the write lock past busy_timeout', async () => {
    const path = join(directory, 'busy.db');
    const database = await openDatabase(path, { busyTimeoutMs: 50 });
    const other = new Database(path);
    try {
      await migrateToLatest(database);
      other.exec('BEGIN IMMEDIATE');
      const store = createJobStore({ database });
      const error = await store
        .store({ envelopeText: companyRevealText(testUuid(1)), source: 'webhook' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({ transient: true, code: 'STORAGE_UNAVAILABLE' });
      other.exec('ROLLBACK');
      const result = await store.store({ envelopeText: companyRevealText(testUuid(1)), source: 'webhook' });
      expect(result.outcome).toBe('stored');
      await store.close();
    } finally {
      other.close();
      await database.close();
    }
  });
});

describe('CachedSqliteDatabase', () => {
  it('reuses statements, evicts the least recent, and streams on a statement of its own', () => {
    const raw = new Database(':memory:');
    const db = new CachedSqliteDatabase(raw, 2);
    try {
      db.prepare('create table t (n integer)').run([]);
      for (let n = 0; n < 5; n += 1) db.prepare('insert into t values (?)').run([n]);
      const select = 'select n from t order by n';
      const cursor = db.prepare(select).iterate([]);
      expect(cursor.next().value).toEqual({ n: 0 });
      // The cached statement is free although a cursor over the same SQL is open.
      expect(db.prepare(select).all([])).toHaveLength(5);
      expect([...cursor]).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
      for (const q of ['select 1 as a', 'select 2 as a', 'select 3 as a', 'select 1 as a']) {
        expect(db.prepare(q).all([])).toHaveLength(1);
      }
      expect(db.prepare('select count(*) as c from t').reader).toBe(true);
      expect(db.prepare('delete from t').reader).toBe(false);
    } finally {
      db.close();
    }
  });
});

describe('isPostgresUrl', () => {
  it('tells URLs from paths', () => {
    expect(isPostgresUrl('postgres://h/db')).toBe(true);
    expect(isPostgresUrl('postgresql://h/db')).toBe(true);
    expect(isPostgresUrl('./postgres.db')).toBe(false);
  });
});

describe('openDatabase on Postgres (unreachable server)', () => {
  it('fails transient without revealing the password', async () => {
    const error = await openDatabase('postgres://app:hunter2-secret@127.0.0.1:1/hooksync').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ transient: true });
    expect((error as Error).message).not.toContain('hunter2-secret');
    expect((error as Error).message).toContain('127.0.0.1:1');
  });
});

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('openDatabase on Postgres'), () => {
  it('connects with the pool size asked for', async () => {
    const created = await createTestDatabase();
    const database = await openDatabase(created.url, { poolSize: 2 });
    try {
      expect(database.dialect).toBe('postgres');
      const pids = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(
            database.db,
          );
          return rows[0]!.pid;
        }),
      );
      expect(new Set(pids).size).toBe(2);
      await expect(openDatabase(created.url, { poolSize: 0 })).rejects.toThrow(TypeError);
    } finally {
      await database.close();
      await created.drop();
    }
  });
});

/**
 * Files holding personal data are created 0600 whatever the umask: the SQLite database with its -wal and
 * -shm files, and exported files. Checked in this process under umask 000 (the widest), and through the
 * real executable started by a shell with umask 000. An existing database keeps the mode it has.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { ensureBuilt } from '../../helpers/ensure-built.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-modes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the built CLI from a shell whose umask is 000; resolves with its exit code and stderr. */
function runUnderUmask000(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const cli = ensureBuilt();
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', 'umask 000 && exec "$@"', 'sh', process.execPath, cli, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

describe('files with personal data', () => {
  it('creates the database and its -wal and -shm files 0600 under umask 000', async () => {
    const path = join(dir, 'in-process.db');
    const previous = process.umask(0o000);
    try {
      const database = await openMigratedDatabase(path);
      try {
        await sql`insert into leases (name, holder, acquired_at, expires_at) values ('x', 'y', 'z', 'w')`.execute(
          database.db,
        );
        expect(existsSync(`${path}-wal`)).toBe(true);
        expect(existsSync(`${path}-shm`)).toBe(true);
        expect([modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual([0o600, 0o600, 0o600]);
      } finally {
        await database.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('leaves an existing database file with the mode its operator gave it', async () => {
    const path = join(dir, 'existing.db');
    writeFileSync(path, '');
    chmodSync(path, 0o640);
    const database = await openMigratedDatabase(path);
    await database.close();
    expect(modeOf(path)).toBe(0o640);
  });

  it('`hooksync migrate` and `hooksync export`, started under umask 000, create 0600 files', async () => {
    const databaseUrl = join(dir, 'cli.db');
    const out = join(dir, 'persons.csv');
    const env = { HOOKSYNC_DATABASE_URL: databaseUrl };
    const migrate = await runUnderUmask000(['migrate'], env);
    expect(migrate.stderr).toBe('');
    expect(migrate.code).toBe(0);
    const exported = await runUnderUmask000(['export', '--template', 'persons', '--out', out], env);
    expect(exported.code).toBe(0);
    expect(modeOf(databaseUrl)).toBe(0o600);
    expect(modeOf(out)).toBe(0o600);
  }, 60_000);
});

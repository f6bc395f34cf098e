/**
 * One receiver per SQLite file: while a real `hooksync serve` process holds a file, a second serve on the
 * same file (under another spelling of its path, too) refuses with one line; another file is free, and
 * the claim goes with the process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimSqliteFile } from '../../../src/cli/claim-sqlite-file.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { BUILT_CLI } from '../../helpers/ensure-built.js';

describe('one receiver per SQLite file', () => {
  let dir: string;
  let database: string;
  let keySetUrl: string;
  let first: ChildProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-claim-'));
    mkdirSync(join(dir, 'data'));
    symlinkSync(join(dir, 'data'), join(dir, 'link'));
    database = join(dir, 'data', 'hooksync.db');
    // A key-set URL where nothing listens: the receiver starts anyway (not ready), which is all this needs.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    keySetUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}/.well-known/jwks.json`;
    await new Promise((resolve) => closed.close(resolve));

    first = spawn(process.execPath, [BUILT_CLI, 'serve', '--port', '0', '--database-url', database], {
      env: { PATH: process.env.PATH ?? '', HOOKSYNC_JWKS_URL: keySetUrl },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    await new Promise<void>((resolve, reject) => {
      first?.stderr?.on('data', (chunk) => {
        log += String(chunk);
        if (log.includes('hooksync serve is listening')) resolve();
      });
      first?.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${log}`)));
    });
  });
  afterAll(() => {
    first?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second serve on the same file with one line, whatever path names it', async () => {
    for (const spelling of [
      database,
      join(dir, 'link', 'hooksync.db'),
      join(dir, 'data', '..', 'data', 'hooksync.db'),
    ]) {
      const second = await runCliCaptured(['serve', '--port', '0', '--database-url', spelling], {
        env: { HOOKSYNC_JWKS_URL: keySetUrl },
      });
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(
        `hooksync: another hooksync serve is already using ${spelling}: run one receiver per SQLite file (several receivers share a Postgres database instead)\n`,
      );
    }
  });

  it('leaves other files free', async () => {
    const release = await claimSqliteFile(join(dir, 'data', 'other.db'));
    await release();
  });

  it('is released when the process ends, even by SIGKILL', async () => {
    const exited = new Promise((resolve) => first?.once('exit', resolve));
    first?.kill('SIGKILL');
    await exited;
    first = undefined;
    const release = await claimSqliteFile(database);
    await expect(claimSqliteFile(database)).rejects.toThrow(/already using/);
    await release();
  });
});

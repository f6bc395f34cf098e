/**
 * One receiver per SQLite file: while a real `hooksync serve` process holds a file, a second serve on the
 * same file refuses with one line, whatever name reaches the file (another spelling, a symlink to its
 * folder or to the file, a hard link); another file is free; the claim goes with the process, even by
 * SIGKILL; and a process of another user (`nobody`) can neither squat the claim before serve starts nor
 * take it while serve holds it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimSqliteFile, lockFileOf } from '../../../src/cli/claim-sqlite-file.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { BUILT_CLI } from '../../helpers/ensure-built.js';

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');
/** Runs as root with setpriv to drop to another user: the squatter tests need both. */
const canSwitchUser = process.getuid?.() === 0 && hasSetpriv();

function hasSetpriv(): boolean {
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A small node process of user `nobody` that creates (if it can) and locks `lockPath` as a claim would,
 * then holds it; prints `held`, or `refused <code>` and exits.
 */
function startSquatter(lockPath: string): Promise<{ child: ChildProcess; said: string }> {
  const script = `
    const fs = require('node:fs');
    const Database = require(${JSON.stringify(BETTER_SQLITE3)});
    try {
      try { fs.closeSync(fs.openSync(process.argv[1], 'wx', 0o600)); } catch {}
      const db = new Database(process.argv[1], { fileMustExist: true, timeout: 0 });
      db.exec('BEGIN EXCLUSIVE');
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      console.log('held');
      setInterval(() => {}, 1000);
    } catch (error) {
      console.log('refused ' + (error.code ?? error.message));
      process.exit(0);
    }`;
  const child = spawn(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script, lockPath],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      if (out.includes('\n')) resolve({ child, said: out.trim() });
    });
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`squatter exited with ${code}: ${out}`));
    });
  });
}

describe('one receiver per SQLite file', () => {
  let dir: string;
  let database: string;
  let keySetUrl: string;
  let first: ChildProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-claim-'));
    mkdirSync(join(dir, 'data'));
    mkdirSync(join(dir, 'elsewhere'));
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
    symlinkSync(database, join(dir, 'elsewhere', 'to-the-file.db'));
    linkSync(database, join(dir, 'data', 'hard-link.db'));
  });
  afterAll(() => {
    first?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second serve on the same file with one line, whatever name reaches it', async () => {
    for (const spelling of [
      database,
      join(dir, 'link', 'hooksync.db'),
      join(dir, 'data', '..', 'data', 'hooksync.db'),
      join(dir, 'elsewhere', 'to-the-file.db'),
      join(dir, 'data', 'hard-link.db'),
    ]) {
      const second = await runCliCaptured(
        ['serve', '--port', '0', '--database-url', spelling, '--log-level', 'error'],
        {
          env: { HOOKSYNC_JWKS_URL: keySetUrl },
        },
      );
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(
        `hooksync: another hooksync serve is already using ${spelling}: run one receiver per SQLite file (several receivers share a Postgres database instead)\n`,
      );
    }
  });

  it('keeps its claim in a private lock file beside the database, named after its device and inode', () => {
    const lock = lockFileOf(realpathSync(database), statSync(database));
    expect(lock).toBe(
      join(
        realpathSync(dir),
        'data',
        `.hooksync-serve-${statSync(database).dev}-${statSync(database).ino}.lock`,
      ),
    );
    expect(statSync(lock).mode & 0o777).toBe(0o600);
    expect(statSync(lock).size).toBe(0);
  });

  it('warns of a file with several hard links', async () => {
    const other = join(dir, 'data', 'linked.db');
    writeFileSync(other, '');
    linkSync(other, join(dir, 'elsewhere', 'linked.db'));
    const warnings: string[] = [];
    const release = await claimSqliteFile(other, { onWarning: (message) => warnings.push(message) });
    await release();
    expect(warnings).toEqual([expect.stringMatching(/ has 2 hard links: serve it by one name only/)]);
  });

  it('leaves other files free, and a released claim can be taken again', async () => {
    const release = await claimSqliteFile(join(dir, 'data', 'other.db'));
    await expect(claimSqliteFile(join(dir, 'data', 'other.db'))).rejects.toThrow(/already using/);
    await release();
    const again = await claimSqliteFile(join(dir, 'data', 'other.db'));
    await again();
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

describe.skipIf(!canSwitchUser)(
  'one receiver per SQLite file against another local user (skipped: needs root and setpriv)',
  () => {
    let dir: string;
    let target: string;
    let lock: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'hooksync-squat-'));
      // A folder anyone may write, like /tmp: the one place another user can put a file beside the database.
      chmodSync(dir, 0o755);
      const shared = join(dir, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      target = join(shared, 'hooksync.db');
      writeFileSync(target, '', { mode: 0o600 });
      lock = lockFileOf(realpathSync(target), statSync(target));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('does not let a squatter who locked the lock file first keep serve from starting', async () => {
      const squatter = await startSquatter(lock);
      try {
        expect(squatter.said).toBe('held');
        expect(statSync(lock).uid).toBe(65534);
        const release = await claimSqliteFile(target);
        expect(statSync(lock).uid).toBe(process.getuid?.());
        expect(statSync(lock).mode & 0o777).toBe(0o600);
        await release();
      } finally {
        squatter.child.kill('SIGKILL');
      }
    });

    it('does not let another user take a claim serve holds', async () => {
      const release = await claimSqliteFile(target);
      try {
        const squatter = await startSquatter(lock);
        squatter.child.kill('SIGKILL');
        expect(squatter.said).toMatch(/^refused /);
        // Still held: a second claim by this user is refused.
        await expect(claimSqliteFile(target)).rejects.toThrow(/already using/);
      } finally {
        await release();
      }
    });
  },
);

/**
 * One receiver per SQLite file: `serve` claims its database by holding an exclusive lock on a private lock
 * file beside it, named after the database's device and inode, so every name of the file (a symlink, a
 * hard link in the same folder, `..` spellings) meets the same claim. The lock is SQLite's own (an
 * exclusive transaction held open on the lock file, a lock database that stays empty): the kernel drops it
 * when the process ends, however it ends, and only a user who can write the lock file can take it, so
 * another local user cannot squat the claim as one could an abstract socket.
 */
import { closeSync, lstatSync, openSync, realpathSync, type Stats, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { ensureSqliteFile, SQLITE_FILE_MODE } from '../storage/open-database.js';
import { CliError } from './context.js';

/** Releases a claim (ends the lock's transaction and closes its connection). */
export type ReleaseClaim = () => Promise<void>;

/** Where the claim of the database file `stats` (found at `realPath`) is held. */
export function lockFileOf(realPath: string, stats: Stats): string {
  return join(dirname(realPath), `.hooksync-serve-${stats.dev}-${stats.ino}.lock`);
}

/** The users whose lock file is trusted: this process's, the database file's owner, and root. */
function isTrustedOwner(uid: number, database: Stats): boolean {
  const self = process.geteuid?.();
  return self === undefined || uid === self || uid === database.uid || uid === 0;
}

/** What is at `path` without following a link, or undefined when nothing is. */
function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Makes `lockPath` a regular file of a trusted owner: created 0600 when missing; anything else found there
 * (another user's file, a link) is removed and replaced, or refused when it cannot be removed. The file is
 * never opened here once it exists: closing any descriptor of a file drops this process's locks on it.
 */
function prepareLockFile(lockPath: string, database: Stats): void {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const found = lstatOrUndefined(lockPath);
    if (found === undefined) {
      try {
        closeSync(openSync(lockPath, 'wx', SQLITE_FILE_MODE));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw new CliError(`cannot create the lock file ${lockPath}: ${(error as Error).message}`);
      }
      return;
    }
    if (found.isFile() && isTrustedOwner(found.uid, database)) return;
    try {
      unlinkSync(lockPath);
    } catch (error) {
      throw new CliError(
        `the lock file ${lockPath} is ${found.isFile() ? `owned by uid ${found.uid}` : 'not a regular file'} and cannot be removed ` +
          `(${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): remove it, and keep the database in a folder only its owner can write`,
      );
    }
  }
  throw new CliError(`the lock file ${lockPath} keeps being replaced: another user writes that folder`);
}

/**
 * Claims `file` for this process, or throws CliError when another process (or another receiver in this
 * one) holds it. Creates the database file (empty, 0600) when it does not exist yet; `onWarning` hears of
 * a file with several hard links. Postgres URLs and `:memory:` need no claim.
 */
export async function claimSqliteFile(
  file: string,
  options: { onWarning?: (message: string) => void } = {},
): Promise<ReleaseClaim> {
  try {
    ensureSqliteFile(file);
  } catch (error) {
    throw new CliError((error as Error).message, 1, { cause: error });
  }
  const realPath = realpathSync(file);
  const stats = statSync(realPath);
  const lockPath = lockFileOf(realPath, stats);
  if (stats.nlink > 1) {
    // A hard link in another folder meets another lock file; SQLite itself keeps a WAL per name.
    options.onWarning?.(
      `${file} has ${stats.nlink} hard links: serve it by one name only (a second receiver by a name in another folder is not detected, and SQLite keeps a separate write-ahead log per name)`,
    );
  }
  prepareLockFile(lockPath, stats);
  let lock: Database.Database | undefined;
  try {
    lock = new Database(lockPath, { fileMustExist: true, timeout: 0 });
    // The transaction takes SQLite's exclusive lock once a page is read; it stays open for the claim's life.
    lock.exec('BEGIN EXCLUSIVE');
    lock.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    lock?.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new CliError(
        `another hooksync serve is already using ${file}: run one receiver per SQLite file ` +
          '(several receivers share a Postgres database instead)',
      );
    }
    throw new CliError(`cannot lock ${lockPath}: ${(error as Error).message}`, 1, { cause: error });
  }
  const held = lock;
  return async () => {
    if (!held.open) return;
    held.exec('ROLLBACK');
    held.close();
  };
}

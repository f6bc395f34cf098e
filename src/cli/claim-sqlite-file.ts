/**
 * One receiver per SQLite file: `serve` claims its file by listening on a local socket named after the
 * file, so a second `serve` on the same file (on the same host) fails to listen and refuses with one line.
 * The operating system releases the claim when the process ends, however it ends: no stale lock to clean.
 */
import { createHash } from 'node:crypto';
import { existsSync, realpathSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError } from './context.js';

/** Releases a claim (stops listening on its socket). */
export type ReleaseClaim = () => Promise<void>;

/** The file's absolute path with symbolic links of its folder resolved: the same file names the same claim. */
function identity(file: string): string {
  const absolute = resolve(file);
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
  }
}

/**
 * Where the claim listens: an abstract socket on Linux (never a file, gone with the process), a named pipe
 * on Windows, elsewhere a socket file in the temporary folder (one left by a crash is detected and removed).
 */
function socketPath(file: string): string {
  const hash = createHash('sha256').update(identity(file)).digest('hex').slice(0, 32);
  if (process.platform === 'linux') return `\0hooksync-serve-${hash}`;
  if (process.platform === 'win32') return `\\\\?\\pipe\\hooksync-serve-${hash}`;
  return join(tmpdir(), `hooksync-serve-${hash}.sock`);
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => {
      server.off('error', fail);
      done();
    });
  });
}

/** True when a socket file is left over from a process that is gone (nothing accepts on it). */
function isStale(path: string): Promise<boolean> {
  if (path.startsWith('\0') || path.startsWith('\\\\') || !existsSync(path)) return Promise.resolve(false);
  return new Promise((done) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      done(false);
    });
    probe.once('error', () => done(true));
  });
}

/**
 * Claims `file` for this process, or throws CliError when another process (or another receiver in this
 * one) has it. Postgres URLs and `:memory:` need no claim.
 */
export async function claimSqliteFile(file: string): Promise<ReleaseClaim> {
  const path = socketPath(file);
  const open = async (): Promise<Server> => {
    // Nobody needs to talk to the claim: a connection is only a liveness probe.
    const server = createServer((socket) => socket.destroy());
    await listen(server, path);
    server.unref();
    return server;
  };
  let server: Server;
  try {
    server = await open();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (!(await isStale(path))) {
      throw new CliError(
        `another hooksync serve is already using ${file}: run one receiver per SQLite file ` +
          '(several receivers share a Postgres database instead)',
      );
    }
    unlinkSync(path);
    server = await open();
  }
  return () => new Promise<void>((done) => server.close(() => done()));
}

/**
 * A `hooksync serve` process that the chaos runs can SIGKILL and start again on the same port, so that the
 * simulator's webhook_url stays valid across crashes. The first start goes through spawnServe (which
 * builds dist/ when it is stale); restarts spawn the built executable directly, because a rebuild in the
 * middle of a run (another edit to src/) would block the test's event loop for many seconds.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { BUILT_CLI } from './ensure-built.js';
import { type ServeProcess, spawnServe } from './spawn-serve.js';

/** How long a restart may take to listen, in ms. */
const RESTART_TIMEOUT_MS = 30_000;

/** Like spawnServe, without the build check: starts the already built executable and waits for its URL. */
async function respawnServe(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BUILT_CLI, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOOKSYNC_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not restart in ${RESTART_TIMEOUT_MS} ms:\n${err}`));
    }, RESTART_TIMEOUT_MS);
    let found = false;
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      const match = found ? null : /"url":"(http:\/\/[^"]+)"/.exec(err);
      if (match) {
        found = true;
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening:\n${err}`));
    });
  });
  return { child, url, stderr: () => err, exited };
}

/** A free TCP port on 127.0.0.1, found by binding port 0 and letting it go. */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}

/** A serve process on a fixed port that survives being killed: {@link RestartableServe.crash} then restart. */
export interface RestartableServe {
  readonly port: number;
  /** http://127.0.0.1:port */
  readonly url: string;
  /** How many times it was SIGKILLed. */
  readonly kills: number;
  /** ms each restart took to listen again, oldest first. */
  readonly restartMs: readonly number[];
  /** SIGKILLs the process and waits until it has exited. */
  crash(): Promise<void>;
  /** Starts it again on the same port (after a crash). */
  restart(): Promise<void>;
  /** Everything the current process wrote on stderr. */
  stderr(): string;
  /** Stops it gracefully (SIGTERM: drains, flushes its delivery counts) and waits for the exit. */
  terminate(): Promise<void>;
  /** Stops it for good (SIGKILL: the test owns the data, nothing needs draining). Safe to call twice. */
  close(): Promise<void>;
}

/** Starts `hooksync serve` with `env` on `port` (127.0.0.1). */
export async function startRestartableServe(
  env: Record<string, string>,
  port: number,
): Promise<RestartableServe> {
  const fullEnv = { ...env, HOOKSYNC_HOST: '127.0.0.1', HOOKSYNC_PORT: String(port) };
  let current: ServeProcess | undefined = await spawnServe(fullEnv);
  let kills = 0;
  let closed = false;
  const restartMs: number[] = [];

  const stop = async (signal: 'SIGKILL' | 'SIGTERM'): Promise<void> => {
    const running = current;
    current = undefined;
    if (running === undefined) return;
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill(signal);
    await running.exited;
  };

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    get kills() {
      return kills;
    },
    restartMs,
    async crash() {
      if (current === undefined) throw new TypeError('crash: the process is not running');
      kills += 1;
      await stop('SIGKILL');
    },
    async restart() {
      if (current !== undefined) throw new TypeError('restart: the process is still running');
      if (closed) throw new TypeError('restart: closed for good');
      const started = performance.now();
      const restarted = await respawnServe(fullEnv);
      if (closed) {
        // Closed while it was starting (a test that timed out): no process may outlive the test.
        restarted.child.kill('SIGKILL');
        await restarted.exited;
        throw new TypeError('restart: closed for good');
      }
      current = restarted;
      restartMs.push(Math.round(performance.now() - started));
    },
    stderr: () => current?.stderr() ?? '',
    terminate: () => stop('SIGTERM'),
    close: () => {
      closed = true;
      return stop('SIGKILL');
    },
  };
}

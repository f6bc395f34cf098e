/**
 * Runs the real `hooksync serve` executable as a child process and finds its URL in its log.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { ensureBuilt } from './ensure-built.js';

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (or signal) once it has exited. */
  exited: Promise<number | string>;
}

/** Starts `hooksync serve` with the given environment and waits until it listens. */
export async function spawnServe(env: Record<string, string>, timeoutMs = 20_000): Promise<ServeProcess> {
  const cli = ensureBuilt();
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOOKSYNC_PORT: '0', HOOKSYNC_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not start in ${timeoutMs} ms:\n${err}`)),
      timeoutMs,
    );
    const look = (): void => {
      const match = /"url":"(http:\/\/[^"]+)"/.exec(err);
      if (match) {
        clearTimeout(timer);
        child.stderr!.off('data', look);
        resolve(match[1]!);
      }
    };
    child.stderr!.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening:\n${err}`));
    });
  });
  return { child, url, stderr: () => err, exited };
}

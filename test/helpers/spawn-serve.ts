/**
 * Runs the real `hooksync serve` executable as a child process and finds its URL in its log; and what such a
 * test needs beside it (a signing key, its key set, a folder).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ensureBuilt } from './ensure-built.js';
import { createSigningKey, type JwksServer, type SigningKey, startJwksServer } from './webhook-signer.js';

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

/** What a test of the real executable needs beside it: a signing key, a key set serving it, a folder of its own. */
export interface ServeFixture {
  readonly key: SigningKey;
  readonly jwks: JwksServer;
  readonly dir: string;
}

/**
 * Creates a {@link ServeFixture} before the file's tests and removes it after them (call it at the top of the
 * file, before hooks that use it: vitest runs `beforeAll` hooks in the order they were registered).
 */
export function useServeFixture(dirPrefix: string): ServeFixture {
  let held: ServeFixture | undefined;
  const ready = (): ServeFixture => {
    if (held === undefined) throw new Error('useServeFixture: used before its beforeAll ran');
    return held;
  };
  beforeAll(async () => {
    const key = await createSigningKey();
    held = { key, jwks: await startJwksServer([key.publicJwk]), dir: mkdtempSync(join(tmpdir(), dirPrefix)) };
  });
  afterAll(async () => {
    await held?.jwks.close();
    if (held) rmSync(held.dir, { recursive: true, force: true });
  });
  return {
    get key() {
      return ready().key;
    },
    get jwks() {
      return ready().jwks;
    },
    get dir() {
      return ready().dir;
    },
  };
}

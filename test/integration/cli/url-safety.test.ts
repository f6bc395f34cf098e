/**
 * Settings that fail safe, as a user meets them on the command line: a service URL with credentials or
 * plain http to another host stops the command at once with one line (no retries, no stack trace), and
 * the password never appears.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { type HttpStubServer, startHttpStubServer } from '../../helpers/http-stub-server.js';

let dir: string;
let stub: HttpStubServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-urls-'));
  stub = await startHttpStubServer(() => ({ status: 500, body: '{}' }));
});
afterAll(async () => {
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('service URLs on the command line', () => {
  it.each([
    [
      'reconcile',
      'http://admin:hunter2@{stub}',
      /HOOKSYNC_API_BASE_URL must not hold a user name or password/,
    ],
    ['serve', 'http://admin:hunter2@{stub}', /HOOKSYNC_API_BASE_URL must not hold a user name or password/],
    [
      'reconcile',
      'http://api.example.com',
      /HOOKSYNC_API_BASE_URL must be https:\/\/ unless its host is loopback/,
    ],
  ])('`hooksync %s` with %s stops with one line', async (command, url, message) => {
    const before = stub.requests.length;
    const run = await runCliCaptured([command], {
      env: {
        HOOKSYNC_API_BASE_URL: url.replace('{stub}', stub.url.slice('http://'.length)),
        HOOKSYNC_API_KEY: 'key-0123456789',
        HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
      },
    });
    expect(run.code).not.toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(run.stderr + run.stdout).not.toContain('hunter2');
    // Refused before any request: nothing reached the upstream, let alone six retries.
    expect(stub.requests.length).toBe(before);
  });
});

/**
 * The admin surface of a whole receiver: `hooksync serve` (the real executable) refuses a short admin
 * token; guesses on /admin and /ui share one throttle, per client address, and are counted in /metrics;
 * HOOKSYNC_UI_SESSION_MINUTES sets how long a sign-in lasts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAILURES_PER_ADDRESS } from '../../../src/server/admin-access/create-auth-throttle.js';
import { ensureBuilt } from '../../helpers/ensure-built.js';
import { type ReceiverHarness, startHarness } from '../../helpers/receiver-harness.js';
import { requestFrom, signInFrom } from '../../helpers/request-from-address.js';

const TOKEN = 'admin-surface-token-0123456789abcdef0123456789';

function runServe(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const cli = ensureBuilt();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'serve'], {
      env: { PATH: process.env.PATH ?? '', HOOKSYNC_PORT: '0', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

describe('hooksync serve with a short admin token', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-admin-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start, with one line naming the variable and how to make a good one', async () => {
    const { code, stderr } = await runServe({
      HOOKSYNC_ADMIN_TOKEN: 'trial-token',
      HOOKSYNC_JWKS_URL: 'http://127.0.0.1:9/jwks.json',
      HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
    });
    expect(code).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/HOOKSYNC_ADMIN_TOKEN must be at least 32 characters/);
    expect(lines[0]).toContain('openssl rand -hex 32');
    expect(stderr).not.toContain('trial-token');
  }, 60_000);
});

describe('a receiver with an admin token', () => {
  let harness: ReceiverHarness;
  beforeAll(async () => {
    harness = await startHarness('sqlite', {
      env: { HOOKSYNC_ADMIN_TOKEN: TOKEN, HOOKSYNC_UI_SESSION_MINUTES: '30' },
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('counts guesses on /admin and /ui against one throttle per address, in /metrics', async () => {
    const admin = `${harness.url}/admin/expected-jobs`;
    const half = DEFAULT_FAILURES_PER_ADDRESS / 2;
    for (let i = 0; i < half; i++) {
      expect(
        (await requestFrom('127.0.0.2', admin, { headers: { authorization: `Bearer g${i}` } })).status,
      ).toBe(401);
      expect((await signInFrom('127.0.0.2', harness.url, `g${i}`)).status).toBe(401);
    }
    expect(
      (await requestFrom('127.0.0.2', admin, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(429);
    expect((await signInFrom('127.0.0.2', harness.url, TOKEN)).status).toBe(429);
    expect(
      (await requestFrom('127.0.0.3', admin, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);

    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toMatch(
      /hooksync_admin_auth_refusals_total\{surface="admin_api",refusal="wrong_token"\} 5\b/,
    );
    expect(metrics).toMatch(
      /hooksync_admin_auth_refusals_total\{surface="status_page",refusal="wrong_token"\} 5\b/,
    );
    expect(metrics).toMatch(
      /hooksync_admin_auth_refusals_total\{surface="admin_api",refusal="throttled"\} 1\b/,
    );
    expect(metrics).toMatch(
      /hooksync_admin_auth_refusals_total\{surface="status_page",refusal="throttled"\} 1\b/,
    );
    expect(harness.logs()).toContain('"address":"127.0.0.2"');
    expect(harness.logs()).not.toContain(TOKEN);
  });

  it('keeps a sign-in as long as HOOKSYNC_UI_SESSION_MINUTES says', async () => {
    const answer = await signInFrom('127.0.0.4', harness.url, TOKEN);
    expect(answer.status).toBe(303);
    expect(String(answer.headers['set-cookie'])).toContain(`Max-Age=${30 * 60};`);
  });
});

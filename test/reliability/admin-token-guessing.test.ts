/**
 * Guessing the admin token against the real `hooksync serve` (issue 19, point 6): a bounded flood of
 * wrong bearer tokens and sign-in forms from twenty loopback addresses (127.0.0.10–29) is throttled
 * (only as many guesses are checked as the per-address limits and the global ceiling allow), logged at
 * warn a bounded number of times and counted in /metrics; meanwhile the admin, from an address of their
 * own, still gets in through the API and the sign-in form.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_FAILURES_PER_ADDRESS,
  DEFAULT_GLOBAL_FAILURES,
} from '../../src/server/admin-access/create-auth-throttle.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import { requestFrom, signInFrom } from '../helpers/request-from-address.js';
import { type ServeProcess, spawnServe } from '../helpers/spawn-serve.js';
import { createSigningKey, type JwksServer, startJwksServer } from '../helpers/webhook-signer.js';

const TOKEN = 'f3a9c2d17b6e4058a1c9e7d2b4f6a8c0e1d3b5a7c9e2f4d6b8a0c1e3d5f7a9b2';
const ATTACKERS = Array.from({ length: 20 }, (_, i) => `127.0.0.${10 + i}`);
const GUESSES = 2000;
const IN_FLIGHT = 40;

let dir: string;
let jwks: JwksServer;
let serve: ServeProcess;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-guess-'));
  jwks = await startJwksServer([(await createSigningKey()).publicJwk]);
  serve = await spawnServe({
    HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
    HOOKSYNC_JWKS_URL: jwks.url,
    HOOKSYNC_ADMIN_TOKEN: TOKEN,
  });
}, 60_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await jwks?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('guessing the admin token', () => {
  it('is throttled, logged and counted, and the admin still gets in from another address', async () => {
    const statuses = new Map<number, number>();
    let next = 0;
    const attacker = async (): Promise<void> => {
      while (next < GUESSES) {
        const i = next++;
        const from = ATTACKERS[i % ATTACKERS.length] as string;
        const answer =
          i % 2 === 0
            ? await requestFrom(from, `${serve.url}/admin/expected-jobs`, {
                headers: { authorization: `Bearer guess-${i}` },
              })
            : await signInFrom(from, serve.url, `guess-${i}`);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, attacker));

    const checked = statuses.get(401) ?? 0;
    const throttled = statuses.get(429) ?? 0;
    recordReliabilityFigures('admin-token-guessing', {
      guesses: GUESSES,
      addresses: ATTACKERS.length,
      checked_401: checked,
      throttled_429: throttled,
    });
    expect(checked + throttled).toBe(GUESSES);
    // Twenty addresses could make 200 guesses by their own limits; the global ceiling stops them at 100
    // (give or take the guesses already in flight from addresses still clean when it was reached).
    expect(checked).toBeGreaterThanOrEqual(DEFAULT_GLOBAL_FAILURES);
    expect(checked).toBeLessThanOrEqual(
      Math.min(DEFAULT_GLOBAL_FAILURES + ATTACKERS.length, ATTACKERS.length * DEFAULT_FAILURES_PER_ADDRESS),
    );

    // The admin, from an address that did not guess, is not locked out.
    const admin = '127.0.0.2';
    const list = await requestFrom(admin, `${serve.url}/admin/expected-jobs`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(list.status).toBe(200);
    const signIn = await signInFrom(admin, serve.url, TOKEN);
    expect(signIn.status).toBe(303);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    expect((await requestFrom(admin, `${serve.url}/ui`, { headers: { cookie } })).status).toBe(200);
    // An attacking address is still refused, the right token included.
    const attackerRight = await requestFrom(ATTACKERS[0] as string, `${serve.url}/admin/expected-jobs`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(attackerRight.status).toBe(429);

    const metrics = await (await fetch(`${serve.url}/metrics`)).text();
    const counted = [
      ...metrics.matchAll(/^hooksync_admin_auth_refusals_total\{[^}]*refusal="(\w+)"\} (\d+)$/gm),
    ];
    const sum = (refusal: string) =>
      counted.filter((m) => m[1] === refusal).reduce((total, m) => total + Number(m[2]), 0);
    expect(sum('wrong_token')).toBe(checked);
    expect(sum('throttled')).toBe(throttled + 1);

    // One warn line per checked guess plus a few for throttling: never one per refused request.
    const warnLines = serve
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"level":40') || line.includes('"level":"warn"'));
    expect(warnLines.filter((line) => line.includes('admin token refused'))).toHaveLength(checked);
    expect(warnLines.filter((line) => line.includes('throttled')).length).toBeLessThanOrEqual(
      ATTACKERS.length + 1,
    );
    expect(serve.stderr()).not.toContain(TOKEN);
  }, 120_000);
});

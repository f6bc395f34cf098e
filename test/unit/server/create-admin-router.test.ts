/**
 * The admin API on a real express app on 127.0.0.1 port 0, over a real SQLite file; guessing the token
 * from several 127.0.0.0/8 source addresses.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AuthThrottle,
  createAuthThrottle,
  DEFAULT_FAILURES_PER_ADDRESS,
} from '../../../src/server/admin-access/create-auth-throttle.js';
import { isAuthorizedBearer } from '../../../src/server/admin-access/is-same-secret.js';
import { createAdminRouter } from '../../../src/server/create-admin-router.js';
import { countExpectedJobs } from '../../../src/storage/ledger/list-expected-jobs.js';
import { requestFrom } from '../../helpers/request-from-address.js';
import { createTempSqlite, type TempDatabase } from '../reconcile/helpers/temp-database.js';

const TOKEN = 'admin-token-of-some-length-0123456789';
const A = '0b9c5f7e-1d2a-4c3b-8e4f-5a6b7c8d9e0f';
const B = '1c0d6e8f-2e3b-4d4c-9f5a-6b7c8d9e0f1a';
const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);

let temp: TempDatabase;
let server: Server;
let base: string;

async function start(
  adminToken: string | undefined,
  extra: { throttle?: AuthThrottle; logger?: pino.Logger } = {},
): Promise<void> {
  const app = express();
  app.use(createAdminRouter({ db: temp.database.db, adminToken, now: () => NOW, ...extra }));
  app.use((_req, res) => void res.status(404).json({ code: 'NOT_FOUND' }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function call(method: string, path: string, options: { token?: string | null; body?: string | object } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  return fetch(`${base}${path}`, { method, headers, body });
}

beforeEach(async () => {
  temp = await createTempSqlite();
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  await temp.cleanup();
});

describe('admin API switched off', () => {
  it('does not exist without a token (404), whatever is sent', async () => {
    await start(undefined);
    const response = await call('POST', '/admin/expected-jobs', {
      body: { job_ids: [A], kind: 'job_change' },
    });
    expect(response.status).toBe(404);
    expect((await call('GET', '/admin/expected-jobs')).status).toBe(404);
    expect((await countExpectedJobs(temp.database.db)).pending).toBe(0);
  });

  it('treats an empty token as none', async () => {
    await start('');
    expect((await call('GET', '/admin/expected-jobs', { token: '' })).status).toBe(404);
  });
});

describe('admin API with a token', () => {
  beforeEach(async () => {
    await start(TOKEN);
  });

  it.each([
    ['no header', null],
    ['a wrong token', 'wrong'],
    ['a prefix of the token', TOKEN.slice(0, -1)],
    ['the token plus one character', `${TOKEN}x`],
  ])('answers 401 to %s and records nothing', async (_what, token) => {
    const response = await call('POST', '/admin/expected-jobs', {
      token,
      body: { job_ids: [A], kind: 'job_change' },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await call('GET', '/admin/expected-jobs', { token })).status).toBe(401);
    expect((await countExpectedJobs(temp.database.db)).pending).toBe(0);
  });

  it('records {job_ids, kind} and answers the counts; a repeat adds nothing', async () => {
    const first = await call('POST', '/admin/expected-jobs', {
      body: { job_ids: [A, B], kind: 'search_contact' },
    });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ accepted: 2, added: 2, already_expected: 0 });
    const again = await call('POST', '/admin/expected-jobs', {
      body: { jobs: [{ job_id: A, kind: 'search_contact' }] },
    });
    expect(await again.json()).toEqual({ accepted: 1, added: 0, already_expected: 1 });
    const rows = await temp.database.db.selectFrom('expected_jobs').selectAll().orderBy('job_id').execute();
    expect(rows).toEqual([
      expect.objectContaining({
        job_id: A,
        kind: 'search_contact',
        state: 'pending',
        origin: 'admin',
        attempts: 0,
      }),
      expect.objectContaining({
        job_id: B,
        kind: 'search_contact',
        state: 'pending',
        created_at: new Date(NOW).toISOString(),
      }),
    ]);
  });

  it('refuses a body with one bad id, naming it, and records none of it', async () => {
    const response = await call('POST', '/admin/expected-jobs', {
      body: {
        jobs: [
          { job_id: A, kind: 'job_change' },
          { job_id: 'nope', kind: 'job_change' },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'VALIDATION_BAD_JOB_ID',
      error: ['jobs[1]: "nope" is not a UUID'],
    });
    expect((await countExpectedJobs(temp.database.db)).pending).toBe(0);
  });

  it('answers 400 to malformed JSON and to an empty body', async () => {
    const malformed = await call('POST', '/admin/expected-jobs', { body: '{"job_ids": [' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: 'VALIDATION_BAD_REQUEST' });
    expect((await call('POST', '/admin/expected-jobs')).status).toBe(400);
  });

  it('lists entries by state with the count of each state', async () => {
    await call('POST', '/admin/expected-jobs', { body: { job_ids: [A, B], kind: 'job_change' } });
    await temp.database.db
      .updateTable('expected_jobs')
      .set({ state: 'received' })
      .where('job_id', '=', B)
      .execute();
    const pending = await call('GET', '/admin/expected-jobs?state=pending');
    expect(pending.status).toBe(200);
    const body = (await pending.json()) as { counts: unknown; expected_jobs: { job_id: string }[] };
    expect(body.counts).toEqual({ pending: 1, received: 1, not_found: 0, failed: 0 });
    expect(body.expected_jobs.map((e) => e.job_id)).toEqual([A]);
    const all = (await (await call('GET', '/admin/expected-jobs?limit=1')).json()) as {
      expected_jobs: unknown[];
    };
    expect(all.expected_jobs).toHaveLength(1);
    expect((await call('GET', '/admin/expected-jobs?state=lost')).status).toBe(400);
    expect((await call('GET', '/admin/expected-jobs?limit=0')).status).toBe(400);
  });

  it('leaves other routes to the app', async () => {
    expect((await call('GET', '/admin/other')).status).toBe(404);
  });
});

describe('isAuthorizedBearer', () => {
  it.each([
    [`Bearer ${TOKEN}`, true],
    [`bearer ${TOKEN}`, true],
    [`Bearer  ${TOKEN} `, true],
    [`Basic ${TOKEN}`, false],
    [TOKEN, false],
    ['Bearer ', false],
    [undefined, false],
  ])('%j → %s', (header, expected) => {
    expect(isAuthorizedBearer(header, TOKEN)).toBe(expected);
  });
});

describe('admin token rules', () => {
  it('refuses a token shorter than 32 characters', () => {
    expect(() => createAdminRouter({ db: temp.database.db, adminToken: 'trial-token' })).toThrow(
      /at least 32/,
    );
    expect(() => createAdminRouter({ db: temp.database.db, adminToken: 'x'.repeat(31) })).toThrow(TypeError);
    expect(() => createAdminRouter({ db: temp.database.db, adminToken: 'x'.repeat(32) })).not.toThrow();
    // The tests' afterEach closes a server.
    server = express().listen(0, '127.0.0.1');
  });
});

describe('guessing the admin token', () => {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const list = (from: string, token: string) =>
    requestFrom(from, `${base}/admin/expected-jobs`, { headers: bearer(token) });

  it('throttles a flood from one address, bounded and logged, without locking out another address', async () => {
    const lines: Array<{ level: number; msg: string; address?: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    await start(TOKEN, { logger, throttle: createAuthThrottle({ logger, now: () => NOW }) });
    const FLOOD = 300;
    const statuses: number[] = [];
    // 300 guesses from 127.0.0.5, 20 at a time.
    for (let i = 0; i < FLOOD; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, j) => list('127.0.0.5', `guess-${i + j}`)),
      );
      statuses.push(...batch.map((answer) => answer.status));
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(DEFAULT_FAILURES_PER_ADDRESS);
    expect(statuses.filter((s) => s === 429)).toHaveLength(FLOOD - DEFAULT_FAILURES_PER_ADDRESS);
    // Refused unchecked: the right token from the flooding address is refused too.
    const right = await list('127.0.0.5', TOKEN);
    expect(right.status).toBe(429);
    expect(JSON.parse(right.body)).toMatchObject({ code: 'TOO_MANY_FAILED_ATTEMPTS' });
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not locked out.
    expect((await list('127.0.0.6', TOKEN)).status).toBe(200);
    // Logged at warn, one line per checked guess and one when throttling starts: not one per request.
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings.filter((line) => line.msg === 'admin token refused')).toHaveLength(
      DEFAULT_FAILURES_PER_ADDRESS,
    );
    expect(warnings.filter((line) => /throttled/.test(line.msg))).toHaveLength(1);
    expect(warnings.every((line) => line.address === '127.0.0.5')).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  it('past the global ceiling, still checks an address with no failures, so the admin gets in', async () => {
    let now = NOW;
    const refused: string[] = [];
    const throttle = createAuthThrottle({
      failuresPerAddress: 3,
      globalFailures: 6,
      now: () => now,
      onRefused: (surface, refusal) => refused.push(`${surface}:${refusal}`),
    });
    await start(TOKEN, { throttle });
    // Three addresses guess twice each: none reaches its own limit, together they reach the ceiling.
    for (const from of ['127.0.0.7', '127.0.0.8', '127.0.0.9']) {
      for (let i = 0; i < 2; i++) expect((await list(from, `guess-${i}`)).status).toBe(401);
    }
    // Addresses that guessed are refused unchecked now; a clean one is still checked.
    expect((await list('127.0.0.7', TOKEN)).status).toBe(429);
    expect((await list('127.0.0.10', TOKEN)).status).toBe(200);
    expect((await list('127.0.0.11', 'another-guess')).status).toBe(401);
    expect((await list('127.0.0.11', TOKEN)).status).toBe(429);
    expect(refused.filter((r) => r === 'admin_api:wrong_token')).toHaveLength(7);
    expect(refused.filter((r) => r === 'admin_api:throttled')).toHaveLength(2);
    // A minute later the window has passed.
    now += 60_000;
    expect((await list('127.0.0.7', TOKEN)).status).toBe(200);
  });
});

/**
 * GET /ui over plain HTTP on a real socket and a real SQLite file: who gets in (bearer, session cookie
 * from the login form, nobody when no token is configured), that signing out ends the session server-side,
 * that wrong tokens are throttled per client address (several 127.0.0.0/8 source addresses), that bodies
 * are shown only when asked and hostile quarantined text is escaped, and that no secret reaches the page
 * or the cookie.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAILURES_PER_ADDRESS } from '../../../src/server/admin-access/create-auth-throttle.js';
import { STATUS_PAGE_PATH } from '../../../src/server/status-page/create-status-page-router.js';
import {
  DEFAULT_SESSION_SECONDS,
  SESSION_COOKIE_NAME,
} from '../../../src/server/status-page/session-cookie.js';
import { requestFrom, signInFrom } from '../../helpers/request-from-address.js';
import {
  createStatusSqlite,
  HOSTILE,
  SEED_NOW,
  SEEDED,
  type StatusDatabase,
  seedStatusData,
} from '../../unit/server/status-page/helpers/status-database.js';
import { type StatusApp, startStatusApp } from './start-status-app.js';

const TOKEN = 'status-page-admin-token-0123456789abcdef';

let temp: StatusDatabase;
beforeAll(async () => {
  temp = await createStatusSqlite();
  await seedStatusData(temp.database.db);
});
afterAll(async () => {
  await temp?.cleanup();
});

async function login(
  app: StatusApp,
  token: string,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${app.base}${STATUS_PAGE_PATH}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...extraHeaders },
    body: new URLSearchParams({ token }).toString(),
  });
}

function cookieOf(response: Response): string {
  const header = response.headers.get('set-cookie') ?? '';
  return header.split(';')[0] ?? '';
}

describe('status page switched off', () => {
  it.each([undefined, ''])('does not exist with admin token %j (404), bearer or not', async (adminToken) => {
    const app = await startStatusApp(temp.database.db, adminToken, SEED_NOW);
    try {
      expect((await fetch(`${app.base}/ui`)).status).toBe(404);
      expect((await fetch(`${app.base}/ui`, { headers: { authorization: 'Bearer ' } })).status).toBe(404);
      expect((await login(app, '')).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('status page with a token', () => {
  let app: StatusApp;
  beforeAll(async () => {
    app = await startStatusApp(temp.database.db, TOKEN, SEED_NOW);
  });
  afterAll(async () => {
    await app.close();
  });

  it.each([
    ['no credentials', {}],
    ['a wrong bearer token', { authorization: 'Bearer wrong' }],
    ['a prefix of the token', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['the token as a cookie', { cookie: `${SESSION_COOKIE_NAME}=${TOKEN}` }],
    [
      'a forged cookie',
      { cookie: `${SESSION_COOKIE_NAME}=v2.${'B'.repeat(22)}.9999999999.${'A'.repeat(43)}` },
    ],
  ])('answers 401 with the login form to %s', async (_what, headers: Record<string, string>) => {
    const response = await fetch(`${app.base}/ui`, { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const page = await response.text();
    expect(page).toContain('<form method="post" action="/ui/login">');
    expect(page).toContain('<label for="token">Admin token</label>');
    expect(page).not.toContain('Quarantine');
  });

  it('serves the page to a valid bearer token, with strict security headers', async () => {
    const response = await fetch(`${app.base}/ui`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const page = await response.text();
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(page).toContain(`<script nonce="${nonce}">`);
    for (const heading of [
      'Deliveries, last 24 hours',
      'Quarantine',
      'Ledger of expected jobs',
      'Reconcile runs',
      'Export cursors',
    ]) {
      expect(page).toContain(`>${heading}</h2>`);
    }
    expect(page).toContain('2026-11-22 21:00 UTC: 15 deliveries (stored 12, refused 3)');
    expect(page).toContain(SEEDED.pendingJobId);
    expect(page).toContain(SEEDED.notFoundJobId);
    expect(page).toContain('hubspot-contacts');
    expect(page).toMatch(/<strong>7<\/strong>/);
  });

  it('shows quarantined ids and reasons but no body content unless asked (?bodies=1)', async () => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const plain = await (await fetch(`${app.base}/ui`, { headers: bearer })).text();
    expect(plain).toContain('<code>q3</code>');
    expect(plain).toContain('&lt;script&gt;window.__pwned = &quot;reason&quot;&lt;/script&gt;');
    expect(plain).not.toContain('class="body-preview"');
    expect(plain).not.toContain('&quot;x&quot;:1');
    expect(plain).toContain('href="/ui?bodies=1#quarantine"');
    const shown = await (await fetch(`${app.base}/ui?bodies=1`, { headers: bearer })).text();
    expect(shown).toContain('class="body-preview"');
    expect(shown).toContain('&quot;x&quot;:1');
    expect(shown).toContain('href="/ui#quarantine">Hide bodies');
  });

  it('escapes every hostile quarantined value: none of it becomes markup', async () => {
    const page = await (
      await fetch(`${app.base}/ui?bodies=1`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    for (const hostile of Object.values(HOSTILE)) expect(page).not.toContain(hostile);
    expect(page).toContain('&lt;script&gt;window.__pwned = &quot;reason&quot;&lt;/script&gt;');
    expect(page).toContain('&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=&#39;detail&#39;&quot;&gt;');
    expect(page).toContain('&lt;/code&gt;&lt;b id=&#39;injected&#39;&gt;bold&lt;/b&gt;');
    // The only script and the only event handlers are our own: one <script>, no on*= attributes, no <img>.
    expect(page.match(/<script/g)).toHaveLength(1);
    const tags = page.match(/<[^>]*>/g) ?? [];
    expect(tags.filter((tag) => /^<(img|b)\b|\son[a-z]+=/i.test(tag))).toEqual([]);
  });

  it('signs in through the form: a 303 and an HttpOnly SameSite=Strict cookie that is not the token', async () => {
    const response = await login(app, TOKEN);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/ui');
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      new RegExp(
        `^${SESSION_COOKIE_NAME}=v2\\.[A-Za-z0-9_-]{22}\\.\\d+\\.[A-Za-z0-9_-]{43}; Path=/ui; Max-Age=${DEFAULT_SESSION_SECONDS}; HttpOnly; SameSite=Strict$`,
      ),
    );
    expect(setCookie).not.toContain(TOKEN);
    const page = await fetch(`${app.base}/ui`, { headers: { cookie: cookieOf(response) } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign out');
  });

  it('marks the cookie Secure when the page is reached over HTTPS through a proxy', async () => {
    const response = await login(app, TOKEN, { 'x-forwarded-proto': 'https' });
    expect(response.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('refuses a wrong token at the form with 401, and the session ends when it expires', async () => {
    const wrong = await login(app, `${TOKEN}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('That is not the admin token.');

    const cookie = cookieOf(await login(app, TOKEN));
    app.setNow(SEED_NOW + DEFAULT_SESSION_SECONDS * 1000 - 1000);
    expect((await fetch(`${app.base}/ui`, { headers: { cookie } })).status).toBe(200);
    app.setNow(SEED_NOW + DEFAULT_SESSION_SECONDS * 1000 + 1000);
    expect((await fetch(`${app.base}/ui`, { headers: { cookie } })).status).toBe(401);
    app.setNow(SEED_NOW);
  });

  it('lasts less than 12 hours by default', () => {
    expect(DEFAULT_SESSION_SECONDS).toBeLessThan(12 * 60 * 60);
  });

  it('signs out server-side: the cleared cookie, and any copy of it kept elsewhere, stop working', async () => {
    const cookie = cookieOf(await login(app, TOKEN));
    const other = cookieOf(await login(app, TOKEN));
    expect((await fetch(`${app.base}/ui`, { headers: { cookie } })).status).toBe(200);
    const response = await fetch(`${app.base}/ui/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie },
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('set-cookie')).toMatch(
      new RegExp(`^${SESSION_COOKIE_NAME}=; Path=/ui; Max-Age=0; HttpOnly; SameSite=Strict$`),
    );
    // A copy of the signed-out cookie (another tab, a stolen value) is refused: the session row is gone.
    expect((await fetch(`${app.base}/ui`, { headers: { cookie } })).status).toBe(401);
    // Another browser's session is its own and goes on.
    expect((await fetch(`${app.base}/ui`, { headers: { cookie: other } })).status).toBe(200);
  });

  it('never shows the token on any page it serves', async () => {
    const pages = [
      await fetch(`${app.base}/ui`, { headers: { authorization: `Bearer ${TOKEN}` } }),
      await fetch(`${app.base}/ui`),
      await login(app, `${TOKEN}-wrong`),
    ];
    for (const page of pages) expect(await page.text()).not.toContain(TOKEN.slice(0, 16));
  });
});

describe('a section that cannot be read', () => {
  it('is shown as unavailable while the rest of the page still renders (200)', async () => {
    const broken = await createStatusSqlite();
    const app = await startStatusApp(broken.database.db, TOKEN, SEED_NOW);
    try {
      await seedStatusData(broken.database.db);
      await sql`drop table delivery_stats`.execute(broken.database.db);
      const response = await fetch(`${app.base}/ui/`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(page.match(/class="unavailable"/g)).toHaveLength(1);
      expect(page).not.toContain('delivery_stats');
      expect(page).toContain(SEEDED.notFoundJobId);
    } finally {
      await app.close();
      await broken.cleanup();
    }
  });
});

describe('sign-in throttle', () => {
  it(`refuses an address after ${DEFAULT_FAILURES_PER_ADDRESS} wrong tokens in a minute, even the right one, while another address gets in`, async () => {
    const app = await startStatusApp(temp.database.db, TOKEN, SEED_NOW);
    const bearer = { authorization: `Bearer ${TOKEN}` };
    try {
      // Form and bearer guesses from 127.0.0.3 count together.
      for (let i = 0; i < DEFAULT_FAILURES_PER_ADDRESS; i++) {
        const answer =
          i % 2 === 0
            ? await signInFrom('127.0.0.3', app.base, `guess-${i}`)
            : await requestFrom('127.0.0.3', `${app.base}/ui`, {
                headers: { authorization: `Bearer guess-${i}` },
              });
        expect(answer.status).toBe(401);
      }
      const throttled = await signInFrom('127.0.0.3', app.base, TOKEN);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect((await requestFrom('127.0.0.3', `${app.base}/ui`, { headers: bearer })).status).toBe(429);
      // The flood from 127.0.0.3 does not lock out 127.0.0.4: the admin signs in and reads the page.
      expect((await signInFrom('127.0.0.4', app.base, TOKEN)).status).toBe(303);
      expect((await requestFrom('127.0.0.4', `${app.base}/ui`, { headers: bearer })).status).toBe(200);
      // A visit without credentials is not a guess: it gets the form, not a 429.
      expect((await requestFrom('127.0.0.3', `${app.base}/ui`)).status).toBe(401);
      app.setNow(SEED_NOW + 61_000);
      expect((await signInFrom('127.0.0.3', app.base, TOKEN)).status).toBe(303);
    } finally {
      app.setNow(SEED_NOW);
      await app.close();
    }
  });

  it('answers 413 to an oversized form without reading it', async () => {
    const app = await startStatusApp(temp.database.db, TOKEN, SEED_NOW);
    try {
      const response = await login(app, 'x'.repeat(20_000));
      expect(response.status).toBe(413);
    } finally {
      await app.close();
    }
  });
});

/**
 * The status page in a real headless Chromium (Debian's /usr/bin/chromium driven by playwright-core), over a
 * real SQLite file with seeded rows: what a person sees after signing in, that hostile quarantined text
 * stays text, that the page runs under its CSP without violations, and a screenshot for review
 * (test-artifacts/status-page.png). Skipped, saying why, where Chromium is not installed.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE_NAME } from '../../../src/server/status-page/session-cookie.js';
import { chromiumSuiteName, HAS_CHROMIUM, launchChromium } from '../../helpers/chromium.js';
import {
  createStatusSqlite,
  HOSTILE,
  SEED_NOW,
  SEEDED,
  type StatusDatabase,
  seedStatusData,
} from '../../unit/server/status-page/helpers/status-database.js';
import { type StatusApp, startStatusApp } from './start-status-app.js';

const TOKEN = 'browser-admin-token-0123456789abcdef';
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

describe.skipIf(!HAS_CHROMIUM)(chromiumSuiteName('status page in Chromium'), () => {
  let temp: StatusDatabase;
  let app: StatusApp;
  let browser: Browser;

  beforeAll(async () => {
    temp = await createStatusSqlite();
    await seedStatusData(temp.database.db);
    app = await startStatusApp(temp.database.db, TOKEN, SEED_NOW);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await temp?.cleanup();
  });

  it('asks for the token, shows every section after sign-in, keeps hostile text as text', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 } });
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    try {
      const first = await page.goto(`${app.base}/ui`);
      expect(first?.status()).toBe(401);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('hooksync status');

      await page.getByLabel('Admin token').fill('not-the-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect(await page.getByRole('alert').textContent()).toBe('That is not the admin token.');

      await page.getByLabel('Admin token').fill(TOKEN);
      const [signedIn] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${app.base}/ui` && r.request().method() === 'GET'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      expect(signedIn.status()).toBe(200);
      await page.waitForLoadState('load');

      for (const name of [
        'Deliveries, last 24 hours',
        'Quarantine',
        'Ledger of expected jobs',
        'Reconcile runs',
        'Export cursors',
      ]) {
        expect(await page.getByRole('heading', { level: 2, name }).isVisible()).toBe(true);
      }

      // The chart: 24 bars, each an image named by its title; the seeded hours have their segments.
      expect(await page.locator('#delivery-chart g.bar').count()).toBe(24);
      const current = page.getByRole('img', {
        name: '2026-11-22 21:00 UTC: 15 deliveries (stored 12, refused 3)',
      });
      expect(await current.count()).toBe(1);
      expect(await current.locator('rect.segment').count()).toBe(2);
      const earlier = page.getByRole('img', {
        name: /2026-11-22 16:00 UTC: 42 deliveries \(stored 40, retry later 2\)/,
      });
      expect(await earlier.count()).toBe(1);
      expect(await page.locator('#delivery-chart rect.segment').count()).toBe(4);
      const box = await current.locator('rect.segment').first().boundingBox();
      expect(box?.height ?? 0).toBeGreaterThan(10);

      // Counts a person reads off the tables.
      const ledger = page.getByRole('table', { name: 'Expected jobs by state' });
      expect(
        await ledger
          .getByRole('row', { name: /^received/ })
          .getByRole('cell')
          .textContent(),
      ).toBe('2');
      expect(
        await ledger
          .getByRole('row', { name: /^pending/ })
          .getByRole('cell')
          .textContent(),
      ).toBe('1');
      const reasons = page.getByRole('table', { name: 'Quarantined callbacks by reason' });
      expect(
        await reasons
          .getByRole('row', { name: /SIGNATURE_EXPIRED/ })
          .getByRole('cell')
          .textContent(),
      ).toBe('2');
      expect(await page.getByText(SEEDED.pendingJobId).first().isVisible()).toBe(true);
      expect(await page.getByText('hubspot-contacts').isVisible()).toBe(true);
      const runs = page.getByRole('table', { name: 'Latest reconcile runs, newest first' });
      expect(await runs.locator('tr.warn').count()).toBe(1);
      expect(await page.getByRole('note').textContent()).toMatch(
        /recovered jobs whose callbacks never arrived/,
      );

      // Hostile quarantined text is shown as text and never ran.
      expect(await reasons.getByText(HOSTILE.reason, { exact: true }).isVisible()).toBe(true);
      const latest = page.getByRole('table', { name: 'Latest quarantined callbacks, newest first' });
      expect(await latest.getByText(HOSTILE.detail, { exact: true }).isVisible()).toBe(true);
      // Bodies may hold personal data: hidden until the operator asks for them.
      expect(await latest.getByText(HOSTILE.body, { exact: true }).count()).toBe(0);
      await Promise.all([
        page.waitForResponse((r) => r.url().startsWith(`${app.base}/ui?bodies=1`)),
        page.getByRole('link', { name: 'Show the start of each body' }).click(),
      ]);
      await page.waitForLoadState('load');
      expect(await latest.getByText(HOSTILE.body, { exact: true }).isVisible()).toBe(true);
      expect(await page.locator('#injected').count()).toBe(0);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.evaluate('window.__pwned')).toBeUndefined();
      expect(await page.locator('script').count()).toBe(1);

      // The session cookie is HttpOnly (invisible to scripts), SameSite=Strict, and is not the token.
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === SESSION_COOKIE_NAME);
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/ui' });
      expect(session?.value).not.toContain(TOKEN);
      expect(await page.evaluate('document.cookie')).toBe('');

      // The auto-refresh toggle runs under the CSP and remembers its state.
      await page.getByLabel('Refresh every 30 s').check();
      expect(await page.evaluate("window.localStorage.getItem('hooksync-status-auto-refresh')")).toBe('on');
      await page.getByLabel('Refresh every 30 s').uncheck();
      expect(cspViolations).toEqual([]);

      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTIFACTS}status-page.png`, fullPage: true });

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForLoadState('load');
      expect(await page.getByLabel('Admin token').isVisible()).toBe(true);
      expect((await context.cookies()).some((c) => c.name === SESSION_COOKIE_NAME)).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('serves the page to a bearer header, as a script would send it', async () => {
    const context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` } });
    try {
      const page = await context.newPage();
      const response = await page.goto(`${app.base}/ui`);
      expect(response?.status()).toBe(200);
      expect(await page.getByRole('heading', { level: 2, name: 'Quarantine' }).isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });
});

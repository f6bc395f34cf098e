/**
 * Issue 8's promise end to end: the demo's data, in the real receiver's status page, in a real browser.
 * Runs the demo keeping its database, starts `serve`'s composition on it with an admin token, and reads
 * /ui in Debian's headless Chromium. Skipped, saying why, where Chromium is not installed.
 */

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { runDemo } from '../../../src/demo/run-demo.js';
import { startReceiver } from '../../../src/server/start-receiver.js';
import { chromiumSuiteName, HAS_CHROMIUM, launchChromium } from '../../helpers/chromium.js';
import { BUILT_STORE_WORKER } from '../../helpers/ensure-built.js';

const TOKEN = 'demo-admin-token-0123456789abcdef';
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

describe.skipIf(!HAS_CHROMIUM)(chromiumSuiteName('the demo on the status page'), () => {
  it('shows the demo run: deliveries, the refusals with their reasons, and what reconcile recovered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hooksync-demo-ui-'));
    const report = await runDemo({
      outDir: join(dir, 'out'),
      keepDatabase: true,
      tmpDir: dir,
      storeWorkerUrl: BUILT_STORE_WORKER,
    });
    expect(report.databaseKept).toBe(true);
    // The demo's simulator is gone: the key set cannot load, which only matters to new deliveries.
    const config = loadConfig(
      {},
      {
        databaseUrl: report.databasePath,
        jwksUrl: 'http://127.0.0.1:9/.well-known/jwks.json',
        adminToken: TOKEN,
        port: 0,
      },
    );
    const running = await startReceiver({ config, storeWorkerUrl: BUILT_STORE_WORKER });
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({
        viewport: { width: 1366, height: 900 },
        extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` },
      });
      const page = await context.newPage();
      const response = await page.goto(`${running.url}/ui`);
      expect(response?.status()).toBe(200);
      const text = ((await page.locator('body').textContent()) ?? '').replace(/\s+/g, ' ');
      expect(text).toContain('BODY_HASH_MISMATCH');
      expect(text).toContain('SIGNATURE_MISSING');
      expect(text).toMatch(/completed/);
      // The chart has this hour's bar, named for a person reading it with a screen reader.
      expect(await page.locator('svg title').count()).toBeGreaterThan(0);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'status-page-demo.png'), fullPage: true });
    } finally {
      await browser.close();
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

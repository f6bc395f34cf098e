/**
 * Debian's headless Chromium, driven by playwright-core, for tests of what a person sees. Where it is not
 * installed (a user's laptop), suites skip themselves and say why.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);

/** A describe title that names the reason when the suite is skipped. */
export function chromiumSuiteName(name: string): string {
  return HAS_CHROMIUM ? name : `${name} (skipped: ${CHROMIUM_PATH} is not installed)`;
}

/**
 * Launches it headless with the flags this closed network needs (no background connections, no QUIC);
 * launch() gives every run a fresh temporary profile of its own.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

#!/usr/bin/env node
/**
 * Quarantined bodies, received vs stored (issue 13, migration 009): realistic refused bodies (a whole
 * 250-person page refused for its body hash, a reveal kept for a reused jti, the 64 KiB prefix kept of an
 * unsigned page, random non-UTF-8 bytes as the incompressible worst case) through the real byte codec
 * (dist/storage/quarantine/quarantine-body.js), with the received size as the baseline. Sizes only, no timings.
 *
 *   npm run build && node bench/quarantine-bodies.mjs
 */
import { randomBytes } from 'node:crypto';
import { createRandom, realisticReveal, realisticSearchPage } from './lib/realistic-payloads.mjs';

const { quarantineBodyColumns, decodeQuarantineBody } = await import(
  new URL('../dist/storage/quarantine/quarantine-body.js', import.meta.url).href
);
const random = createRandom(13);
const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const page = Buffer.from(realisticSearchPage(random, id(1)));
const BODIES = [
  ['realistic 250-person page, whole (BODY_HASH_MISMATCH)', page],
  ['realistic company reveal, whole (JTI_REUSED)', Buffer.from(realisticReveal(random, id(2)))],
  ['unsigned page, 64 KiB prefix kept (SIGNATURE_MISSING)', page.subarray(0, 64 * 1024)],
  ['4 KiB of random bytes, not UTF-8 (worst case)', randomBytes(4096)],
];
console.log('| refused body | received bytes | stored bytes | stored / received |');
console.log('|---|---|---|---|');
for (const [name, body] of BODIES) {
  const { body_z: stored } = quarantineBodyColumns(body);
  if (!decodeQuarantineBody(stored).equals(body)) throw new Error(`${name}: not read back byte for byte`);
  const ratio = (stored.length / body.length).toFixed(2);
  console.log(
    `| ${name} | ${body.length.toLocaleString('en-US')} | ${stored.length.toLocaleString('en-US')} | ${ratio}× |`,
  );
}

#!/usr/bin/env node
/**
 * Verification cost in one process, no HTTP: verifyCallback of this build (dist/: the token split by hand,
 * signature first, then times, then the body hash) against verifyCallback of another build (--base-dist,
 * e.g. the commit before), alternating in every round on the same signed deliveries, for the ~2 KB company
 * reveal and the 340 KB page of 250 people. Prints a markdown table of µs per verification.
 *
 *   npm run build && node bench/verify.mjs --base-dist /path/to/other/dist [--rounds 7] [--count 3000]
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadPayloadTemplate, PAYLOAD_KINDS } from './lib/delivery-payloads.mjs';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { createBenchKey, createTokenSigner } from './lib/signing-key.mjs';
import { median } from './lib/stats.mjs';

const { values: flags } = parseArgs({
  options: {
    'base-dist': { type: 'string' },
    rounds: { type: 'string', default: '7' },
    count: { type: 'string', default: '3000' },
  },
});
if (!flags['base-dist'])
  throw new TypeError('--base-dist DIR is required (the dist/ of the build to compare with)');
const rounds = Number(flags.rounds);
const count = Number(flags.count);

async function load(distUrl) {
  const { verifyCallback } = await import(new URL('webhooks/verify-callback.js', distUrl).href);
  const { createKeySetCache } = await import(new URL('webhooks/key-set-cache.js', distUrl).href);
  return { verifyCallback, createKeySetCache };
}
const builds = {
  base: await load(pathToFileURL(`${flags['base-dist'].replace(/\/+$/, '')}/`)),
  this: await load(new URL('../dist/', import.meta.url)),
};
const key = createBenchKey();
const jwks = await startJwksServer([key.publicJwk]);
const signer = createTokenSigner(key);
const results = {};
try {
  for (const payloadName of PAYLOAD_KINDS) {
    const template = loadPayloadTemplate(payloadName);
    // The page is 340 KB: fewer of them keep the pool's memory modest.
    const n = payloadName === 'search' ? Math.max(1, Math.floor(count / 10)) : count;
    const deliveries = Array.from({ length: n }, () => {
      const jobId = randomUUID();
      const body = Buffer.concat([template.prefix, Buffer.from(jobId), template.suffix]);
      return { body, signature: signer.signBody(body, jobId) };
    });
    results[payloadName] = { base: [], this: [], bytes: deliveries[0].body.length };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['base', 'this'] : ['this', 'base'];
      for (const name of order) {
        const { verifyCallback, createKeySetCache } = builds[name];
        const keys = createKeySetCache({ url: jwks.url });
        await keys.load();
        const started = performance.now();
        for (const delivery of deliveries) await verifyCallback(delivery, { keys });
        results[payloadName][name].push(((performance.now() - started) * 1000) / deliveries.length);
      }
    }
  }
} finally {
  await jwks.close();
}
const lines = [
  ...ownMachineLines(),
  '',
  `Command: \`node bench/verify.mjs --base-dist DIR --rounds ${rounds} --count ${count}\` — median of ${rounds} alternating rounds of ${count} verifications (a tenth of that for the page).`,
  '',
  '| payload | bytes | base build, µs per verification | this build, µs | this / base |',
  '|---|---:|---:|---:|---:|',
];
for (const [name, r] of Object.entries(results)) {
  const base = median(r.base);
  const mine = median(r.this);
  lines.push(
    `| ${name} | ${r.bytes} | ${base.toFixed(1)} | ${mine.toFixed(1)} | ${(mine / base).toFixed(2)}× |`,
  );
}
console.log(lines.join('\n'));

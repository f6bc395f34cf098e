#!/usr/bin/env node
/**
 * Which codec stores envelopes: every codec Node 20 ships at its fast levels, on the realistic bodies of
 * bench/lib/realistic-payloads.mjs (a 250-person page, 1.5 KB reveals) and on the older bench page (the
 * fixture's people replicated), by ratio and by compress/decompress time (the fastest of several rounds:
 * the machine is shared, the minimum is the least disturbed figure).
 *
 *   node bench/codecs.mjs [--rounds 7]
 */
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { loadPayloadTemplate } from './lib/delivery-payloads.mjs';
import { createRandom, realisticReveal, realisticSearchPage } from './lib/realistic-payloads.mjs';

const { values: flags } = parseArgs({ options: { rounds: { type: 'string', default: '7' } } });
const rounds = Number(flags.rounds);
const brotli = (quality) => (bytes) =>
  zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
const { ENVELOPE_DICTIONARY_TEXT } = await import(
  new URL('../dist/storage/envelope-dictionary.js', import.meta.url).href
);
const dictionary = Buffer.from(ENVELOPE_DICTIONARY_TEXT, 'utf8');
const CODECS = [
  ['gzip level 1', (b) => zlib.gzipSync(b, { level: 1 }), zlib.gunzipSync],
  ['gzip level 6 (default)', (b) => zlib.gzipSync(b, { level: 6 }), zlib.gunzipSync],
  ['brotli quality 1', brotli(1), zlib.brotliDecompressSync],
  ['brotli quality 2', brotli(2), zlib.brotliDecompressSync],
  ['brotli quality 4', brotli(4), zlib.brotliDecompressSync],
  [
    'deflate level 6 + the envelope dictionary',
    (b) => zlib.deflateRawSync(b, { level: 6, dictionary }),
    (b) => zlib.inflateRawSync(b, { dictionary }),
  ],
];

const random = createRandom(13);
const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const page = Buffer.from(realisticSearchPage(random, id(1)));
const reveals = Array.from({ length: 200 }, (_, i) => Buffer.from(realisticReveal(random, id(100 + i))));
const old = loadPayloadTemplate('search');
const oldPage = Buffer.concat([old.prefix, Buffer.from(id(2)), old.suffix]);
const revealBytes = reveals.reduce((sum, b) => sum + b.length, 0);

/** The fastest mean of `rounds` rounds of `n` calls, in ms. */
function fastest(fn, n) {
  let best = Infinity;
  for (let round = 0; round < rounds; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i += 1) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6 / n);
  }
  return best;
}

const fmt = (n, digits = 2) => n.toFixed(digits);
console.log(`### Envelope codecs (node ${process.version})\n`);
console.log(
  `Command: \`node bench/codecs.mjs --rounds ${rounds}\`. Realistic page ${page.length.toLocaleString('en-US')} bytes (250 people); ` +
    `old bench page ${oldPage.length.toLocaleString('en-US')} bytes; ${reveals.length} realistic reveals, ${Math.round(revealBytes / reveals.length)} bytes each on average.\n`,
);
console.log(
  '| codec | realistic page: ratio | compress ms | decompress ms | reveals: ratio | compress µs | old bench page: ratio |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, compress, decompress] of CODECS) {
  const z = compress(page);
  const revealZ = reveals.reduce((sum, b) => sum + compress(b).length, 0);
  const c = fastest(() => compress(page), 10);
  const d = fastest(() => decompress(z), 10);
  let next = 0;
  const rc = fastest(() => compress(reveals[next++ % reveals.length]), 200);
  console.log(
    `| ${name} | ${fmt(page.length / z.length)}× | ${fmt(c)} | ${fmt(d)} | ${fmt(revealBytes / revealZ)}× | ${fmt(rc * 1000, 0)} | ${fmt(oldPage.length / compress(oldPage).length, 1)}× |`,
  );
}

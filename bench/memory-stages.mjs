#!/usr/bin/env node
/**
 * Where a realistic 250-person Search Contact page's memory goes on `serve`'s request thread, stage by
 * stage (issue 29): the heap and external bytes each stage adds while the earlier ones are still held
 * (a full collection before each reading), averaged over `--pages` pages, with the built package (dist/).
 *
 *   npm run build && node --expose-gc bench/memory-stages.mjs [--pages 20]
 */
import { parseArgs } from 'node:util';
import { serialize } from 'node:v8';
import { createRandom, realisticSearchPage } from './lib/realistic-payloads.mjs';

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc');
  process.exit(2);
}
const { values: flags } = parseArgs({ options: { pages: { type: 'string', default: '20' } } });
const count = Number(flags.pages);
const dist = new URL('../dist/', import.meta.url);
const { parseJsonText } = await import(new URL('contract/json.js', dist).href);
const { prepareJob } = await import(new URL('storage/job-store/prepare-job.js', dist).href);
const random = createRandom(7);
const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const bodies = Array.from({ length: count }, (_, i) => Buffer.from(realisticSearchPage(random, id(i + 1))));
const held = () => {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
};
const rows = [];
let before = held();
function stage(label, make) {
  const made = make();
  const now = held();
  rows.push(`| ${label} | ${((now - before) / count / 1e6).toFixed(2)} |`);
  before = now;
  return made;
}
const texts = stage('text (the body decoded: two bytes a character unless all Latin-1)', () =>
  bodies.map((body) => body.toString('utf8')),
);
const trees = stage('parsed tree (lossless parse)', () => texts.map((text) => parseJsonText(text)));
const jobs = stage('prepared job (compressed envelope, schema check, rows)', () =>
  texts.map((text, i) =>
    prepareJob({ envelopeText: text, envelope: trees[i], source: 'webhook', jti: `j${i}` }, Date.now()),
  ),
);
const messages = stage('the prepared job serialized for the store worker (postMessage)', () =>
  jobs.map((job) => serialize(job)),
);
const bodyBytes = bodies.reduce((sum, body) => sum + body.length, 0) / count;
const compressed = jobs.reduce((sum, job) => sum + job.envelopeZ.byteLength, 0) / count;
console.log(
  [
    `Command: \`node --expose-gc bench/memory-stages.mjs --pages ${count}\`: ${count} realistic pages, ${Math.round(bodyBytes).toLocaleString('en-US')} bytes each on average (compressed: ${Math.round(compressed).toLocaleString('en-US')}).`,
    '',
    '| stage, each held with the ones above | MB per page |',
    '|---|---:|',
    `| the body (bytes as read) | ${(bodyBytes / 1e6).toFixed(2)} |`,
    ...rows,
  ].join('\n'),
);
globalThis.keep = [bodies, texts, trees, jobs, messages];

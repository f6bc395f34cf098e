#!/usr/bin/env node
/**
 * The CPU of each step a delivery's body goes through in `hooksync serve`, one at a time and in isolation
 * (issue 42, item 1): the functions of dist/ on realistic bodies (bench/lib/realistic-payloads.mjs), each
 * run in a loop after a warm-up, CPU time (process.cpuUsage) per body. What the request thread does to a
 * body (decode, parse, schema check, rows, the copy of the prepared job to the store worker) and what the
 * worker does (its copy back into objects, compression), beside what the naive handler does to one
 * (JSON.parse of body.toString()). The stages of a whole delivery under load, with the threads' overlap,
 * are in bench/stage-profile.mjs (CPU profiles) and bench/instruction-stages.mjs (callgrind).
 *
 *   npm run build && node bench/page-stages.mjs [--payload page|reveal] [--iterations 200]
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { detectJobKind } from '../dist/contract/job-kind.js';
import { parseJsonText, withoutByteOrderMark } from '../dist/contract/json.js';
import { encodeBytes } from '../dist/storage/envelope-codec.js';
import { checkSchema, prepareJobForWorker } from '../dist/storage/job-store/prepare-job.js';
import { normalizeEnvelope } from '../dist/storage/normalize-envelope.js';
import { ownMachineLines } from './lib/machine.mjs';
import { createRandom, realisticReveal, realisticSearchPage } from './lib/realistic-payloads.mjs';

const { values: flags } = parseArgs({
  options: {
    payload: { type: 'string', default: 'page' },
    iterations: { type: 'string', default: '200' },
  },
});
const iterations = Number(flags.iterations) * (flags.payload === 'reveal' ? 50 : 1);
const random = createRandom(3);
const make = flags.payload === 'reveal' ? realisticReveal : realisticSearchPage;
const texts = Array.from({ length: 20 }, (_, i) =>
  make(random, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
);
const bodies = texts.map((text) => Buffer.from(text, 'utf8'));
const envelopes = texts.map((text) => parseJsonText(text));
const kind = detectJobKind(envelopes[0]);
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const jobs = texts.map((text, i) => {
  const { envelopeBytes: _bytes, ...job } = prepareJobForWorker(
    { envelopeText: text, envelope: envelopes[i], source: 'webhook' },
    Date.now(),
  );
  return job;
});
const cloned = jobs.map((job) => serialize(job));

/** µs of CPU per call of `step` over the bodies, median of three passes. */
function cpu(step) {
  for (let i = 0; i < Math.max(20, iterations / 10); i++) step(i % 20);
  const passes = [];
  for (let pass = 0; pass < 3; pass++) {
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i++) step(i % 20);
    const used = process.cpuUsage(before);
    passes.push((used.user + used.system) / iterations);
  }
  return passes.sort((a, b) => a - b)[1];
}

const STEPS = [
  ['naive: JSON.parse(body.toString())', (i) => JSON.parse(bodies[i].toString('utf8'))],
  ['request thread: SHA-256 of the body', (i) => createHash('sha256').update(bodies[i]).digest()],
  ['request thread: UTF-8 decode (fatal)', (i) => decoder.decode(bodies[i])],
  ['request thread: parse (JSON.parse, int64 check)', (i) => parseJsonText(withoutByteOrderMark(texts[i]))],
  ['request thread: schema check', (i) => checkSchema(envelopes[i], kind)],
  ['request thread: normalized rows', (i) => normalizeEnvelope(envelopes[i], kind, 'job', '')],
  ['request thread: the prepared job copied for the worker', (i) => serialize(jobs[i])],
  ['store worker: the copy read back', (i) => deserialize(cloned[i])],
  ['store worker: compression (envelope codec)', (i) => encodeBytes(bodies[i], kind)],
];
const lines = [
  `Command: \`node bench/page-stages.mjs --payload ${flags.payload} --iterations ${flags.iterations}\` — ` +
    `${bodies[0].length.toLocaleString('en-US')} bytes per body (${kind}), ${iterations} calls per pass, median of 3 passes.`,
  '',
  ...ownMachineLines(),
  '| step | µs of CPU per body |',
  '|---|---:|',
];
for (const [name, step] of STEPS) {
  lines.push(`| ${name} | ${cpu(step).toFixed(flags.payload === 'reveal' ? 1 : 0)} |`);
  console.error(`[page-stages] ${lines.at(-1)}`);
}
console.log(lines.join('\n'));

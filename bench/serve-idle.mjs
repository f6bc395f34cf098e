#!/usr/bin/env node
/**
 * Idle footprint of `hooksync serve` (issue 29): the built CLI started with its default configuration
 * (a fresh SQLite file, a key set served from this process), one realistic Company Reveal delivered and
 * answered, a pause, then its resident set (VmRSS), peak (VmHWM), threads and the parts of RSS
 * (RssAnon: heaps and malloc; RssFile: the node binary and libraries mapped from disk), from
 * /proc/PID/status. Repeated `--runs` times, each a fresh process. With `--base-dist DIR` (default
 * $HOOKSYNC_BENCH_REFERENCE_DIST) the dist/ of another build runs too, alternating with this one, for a
 * same-run comparison. With `--late-ms N` the idle process is read once more N ms after the delivery: V8
 * shrinks a young generation grown at start only when its memory reducer runs, some seconds into idleness;
 * then one more delivery is timed beside the first (whatever idleness did to it shows there).
 *
 *   npm run build && node bench/serve-idle.mjs [--runs 3] [--settle-ms 3000] [--late-ms 60000]
 *     [--base-dist DIR] [--env NAME=VALUE ...]
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { createRandom, realisticReveal } from './lib/realistic-payloads.mjs';
import { createBenchKey, createTokenSigner } from './lib/signing-key.mjs';
import { deliverSigned, spawnServe } from './lib/spawn-serve.mjs';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'settle-ms': { type: 'string', default: '3000' },
    'late-ms': { type: 'string' },
    'base-dist': { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const builds = [{ name: 'this build', cli: new URL('../dist/cli/main.js', import.meta.url).pathname }];
const baseDist = flags['base-dist'] ?? (process.env.HOOKSYNC_BENCH_REFERENCE_DIST || undefined);
if (baseDist) builds.push({ name: `reference build ${baseDist}`, cli: join(baseDist, 'cli/main.js') });
const extraEnv = Object.fromEntries(flags.env.map((pair) => pair.split(/=(.*)/s).slice(0, 2)));
const key = createBenchKey();
const signer = createTokenSigner(key);
const jwks = await startJwksServer([key.publicJwk]);
const random = createRandom(11);

async function status(pid) {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    rssMb: kb('VmRSS') / 1024,
    hwmMb: kb('VmHWM') / 1024,
    anonMb: kb('RssAnon') / 1024,
    fileMb: kb('RssFile') / 1024,
    threads: Number(/^Threads:\s+(\d+)/m.exec(text)?.[1]),
  };
}

/** Delivers one realistic reveal; resolves the ms until its 200. */
async function deliver(url) {
  const jobId = randomUUID();
  const started = performance.now();
  const answer = await deliverSigned(url, signer, jobId, realisticReveal(random, jobId));
  if (answer !== 200) throw new Error(`delivery answered ${answer}`);
  return performance.now() - started;
}

async function oneRun(cli) {
  const serve = await spawnServe({ cli, jwksUrl: jwks.url, env: extraEnv, prefix: 'hooksync-bench-idle-' });
  try {
    const afterStart = await status(serve.pid);
    const firstMs = await deliver(serve.url);
    await sleep(Number(flags['settle-ms']));
    const idle = await status(serve.pid);
    if (flags['late-ms'] === undefined) return { afterStart, idle, firstMs };
    await sleep(Number(flags['late-ms']) - Number(flags['settle-ms']));
    const late = await status(serve.pid);
    return { afterStart, idle, late, firstMs, afterIdleMs: await deliver(serve.url) };
  } finally {
    await serve.stop();
  }
}

const runsOf = new Map(builds.map((build) => [build, []]));
for (let i = 0; i < Number(flags.runs); i++) {
  for (const build of i % 2 === 0 ? builds : [...builds].reverse()) {
    runsOf.get(build).push(await oneRun(build.cli));
  }
}
await jwks.close();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = [];
for (const [build, runs] of runsOf) {
  const mb = (pick) => median(runs.map(pick)).toFixed(1);
  const row = (label, pick, target) =>
    `| ${builds.length > 1 ? `${build.name}: ` : ''}${label} | ${mb((r) => pick(r).rssMb)} | ${mb((r) => pick(r).anonMb)} | ${mb((r) => pick(r).fileMb)} | ${median(runs.map((r) => pick(r).threads))} | ${target ? `≤ 100 MB (issue 42): ${median(runs.map((r) => pick(r).rssMb)) <= 100 ? 'met' : '**NOT met**'}` : ''} |`;
  rows.push(row('after start', (r) => r.afterStart, false));
  rows.push(row(`idle after one delivery (${flags['settle-ms']} ms later)`, (r) => r.idle, true));
  if (flags['late-ms'] !== undefined) {
    rows.push(row(`idle after one delivery (${flags['late-ms']} ms later)`, (r) => r.late, true));
  }
}
console.log(
  [
    ...ownMachineLines(),
    `Command: \`node bench/serve-idle.mjs${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}\` (median of ${flags.runs} fresh processes per build)`,
    '',
    '| serve, default configuration | RSS MB | of which anonymous (heaps, malloc) | of which file-backed (binary, libraries) | threads | target |',
    '|---|---:|---:|---:|---:|---|',
    ...rows,
    '',
    `Answer time of the delivery, ms (median): ${[...runsOf]
      .map(
        ([build, runs]) =>
          `${build.name}: the first after start ${median(runs.map((r) => r.firstMs)).toFixed(0)}` +
          (flags['late-ms'] !== undefined
            ? `, the one after the idle spell ${median(runs.map((r) => r.afterIdleMs)).toFixed(0)}`
            : ''),
      )
      .join('; ')}.`,
  ].join('\n'),
);

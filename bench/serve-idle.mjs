#!/usr/bin/env node
/**
 * Idle footprint of `hooksync serve` (issue 29): the built CLI started with its default configuration
 * (a fresh SQLite file, a key set served from this process), one realistic Company Reveal delivered and
 * answered, a pause, then its resident set (VmRSS), peak (VmHWM), threads and the parts of RSS
 * (RssAnon: heaps and malloc; RssFile: the node binary and libraries mapped from disk), from
 * /proc/PID/status. Repeated `--runs` times, each a fresh process.
 *
 *   npm run build && node bench/serve-idle.mjs [--runs 3] [--settle-ms 3000] [--env NAME=VALUE ...]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { createRandom, realisticReveal } from './lib/realistic-payloads.mjs';
import { createBenchKey, createTokenSigner } from './lib/signing-key.mjs';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'settle-ms': { type: 'string', default: '3000' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
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

async function oneRun() {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-idle-'));
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: {
      PATH: process.env.PATH,
      HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
      HOOKSYNC_JWKS_URL: jwks.url,
      HOOKSYNC_PORT: '0',
      HOOKSYNC_LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let err = '';
    const url = await new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        err += chunk;
        const match = /"url":"(http:\/\/[^"]+)"/.exec(err);
        if (match) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${err}`)));
    });
    const afterStart = await status(child.pid);
    const jobId = randomUUID();
    const body = realisticReveal(random, jobId);
    const token = signer.signBody(body, jobId);
    const response = await fetch(`${url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': token },
      body,
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`delivery answered ${response.status}`);
    await sleep(Number(flags['settle-ms']));
    return { afterStart, idle: await status(child.pid) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve()));
    await rm(dir, { recursive: true, force: true });
  }
}

const runs = [];
for (let i = 0; i < Number(flags.runs); i++) runs.push(await oneRun());
await jwks.close();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (pick) => median(runs.map(pick)).toFixed(1);
console.log(
  [
    ...ownMachineLines(),
    `Command: \`node bench/serve-idle.mjs${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}\` (median of ${runs.length} fresh processes)`,
    '',
    '| serve, default configuration | RSS MB | of which anonymous (heaps, malloc) | of which file-backed (binary, libraries) | threads | target |',
    '|---|---:|---:|---:|---:|---|',
    `| after start | ${mb((r) => r.afterStart.rssMb)} | ${mb((r) => r.afterStart.anonMb)} | ${mb((r) => r.afterStart.fileMb)} | ${median(runs.map((r) => r.afterStart.threads))} | |`,
    `| idle after one delivery (${flags['settle-ms']} ms later) | ${mb((r) => r.idle.rssMb)} | ${mb((r) => r.idle.anonMb)} | ${mb((r) => r.idle.fileMb)} | ${median(runs.map((r) => r.idle.threads))} | ≤ 120 MB: ${median(runs.map((r) => r.idle.rssMb)) <= 120 ? 'met' : '**NOT met**'} |`,
  ].join('\n'),
);

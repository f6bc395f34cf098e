#!/usr/bin/env node
/**
 * Onward latency (issue 44): how long a stored job takes to reach a webhook destination. The built CLI's
 * `serve` runs with its default configuration and one webhook destination (a node:http consumer in this
 * process, answering 204); realistic Company Reveals are delivered one at a time, each after the previous
 * one reached the consumer and a random pause (so that sends fall anywhere in the dispatcher's poll). Per
 * job: from the POST being sent to the consumer's answer (onward), and to serve's 200 (receive). With
 * `--base-dist DIR` (default $HOOKSYNC_BENCH_REFERENCE_DIST) another build runs too, alternating per run.
 *
 *   npm run build && node bench/onward-latency.mjs [--jobs 60] [--runs 2] [--base-dist DIR]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { postReveal } from './lib/post-reveal.mjs';
import { createRandom } from './lib/realistic-payloads.mjs';
import { createBenchKey, createTokenSigner } from './lib/signing-key.mjs';
import { percentile } from './lib/stats.mjs';

const { values: flags } = parseArgs({
  options: {
    jobs: { type: 'string', default: '60' },
    runs: { type: 'string', default: '2' },
    'base-dist': { type: 'string' },
  },
});
const builds = [{ name: 'this build', cli: new URL('../dist/cli/main.js', import.meta.url).pathname }];
const baseDist = flags['base-dist'] ?? (process.env.HOOKSYNC_BENCH_REFERENCE_DIST || undefined);
if (baseDist) builds.push({ name: `reference ${baseDist}`, cli: join(baseDist, 'cli/main.js') });
const key = createBenchKey();
const signer = createTokenSigner(key);
const jwks = await startJwksServer([key.publicJwk]);
const random = createRandom(44);

// The destination: answers 204 and notes when it answered each job (by the job_id in the body).
const answered = new Map();
const waiters = new Map();
const consumer = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const jobId = /"job_id"\s*:\s*"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
    response.writeHead(204).end(() => {
      if (jobId === undefined || answered.has(jobId)) return;
      answered.set(jobId, performance.now());
      waiters.get(jobId)?.();
    });
  });
});
await new Promise((resolve) => consumer.listen(0, '127.0.0.1', resolve));
const consumerUrl = `http://127.0.0.1:${consumer.address().port}/hook`;

async function oneRun(cli) {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-onward-'));
  const destinations = join(dir, 'destinations.json');
  await writeFile(
    destinations,
    JSON.stringify({
      destinations: [
        {
          name: 'onward',
          type: 'webhook',
          url: consumerUrl,
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
      ],
    }),
  );
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: {
      PATH: process.env.PATH,
      HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
      HOOKSYNC_JWKS_URL: jwks.url,
      HOOKSYNC_DESTINATIONS: destinations,
      HOOKSYNC_PORT: '0',
      HOOKSYNC_LOG_LEVEL: 'info',
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
    const onward = [];
    const receive = [];
    for (let i = 0; i < Number(flags.jobs); i++) {
      const jobId = randomUUID();
      const reached = new Promise((resolve) => waiters.set(jobId, resolve));
      const sentAt = performance.now();
      await postReveal(url, signer, random, jobId);
      receive.push(performance.now() - sentAt);
      await reached;
      waiters.delete(jobId);
      onward.push(answered.get(jobId) - sentAt);
      await sleep(random.int(200));
    }
    return { onward, receive };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve()));
    await rm(dir, { recursive: true, force: true });
  }
}

const samples = new Map(builds.map((build) => [build, { onward: [], receive: [] }]));
for (let i = 0; i < Number(flags.runs); i++) {
  for (const build of i % 2 === 0 ? builds : [...builds].reverse()) {
    const { onward, receive } = await oneRun(build.cli);
    samples.get(build).onward.push(...onward);
    samples.get(build).receive.push(...receive);
  }
}
await jwks.close();
consumer.close();
const ms = (values, p) =>
  percentile(
    [...values].sort((a, b) => a - b),
    p,
  ).toFixed(1);
console.log(
  [
    ...ownMachineLines(),
    `Command: \`node bench/onward-latency.mjs${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}\` (${flags.jobs} jobs × ${flags.runs} fresh serve processes per build)`,
    '',
    '| build | onward p50 ms | onward p99 ms | receive p50 ms | receive p99 ms | onward p50 ≤ 100 ms |',
    '|---|---:|---:|---:|---:|---|',
    ...[...samples].map(
      ([build, { onward, receive }]) =>
        `| ${build.name} | ${ms(onward, 50)} | ${ms(onward, 99)} | ${ms(receive, 50)} | ${ms(receive, 99)} | ${Number(ms(onward, 50)) <= 100 ? 'met' : 'not met'} |`,
    ),
  ].join('\n'),
);

#!/usr/bin/env node
/**
 * `hooksync launch` benchmark, two parts, each against the simulator (in this process) with the built CLI
 * as a child process:
 *  1. pacing: job-change checks at a compressed rate (default 20 per 2 s): launches per second as a share
 *     of the allowed rate (the first full bucket left out), and the share answered 429. Baseline, same
 *     run: the library client alone (createClient, 4 at a time, no launch records), same rate and count.
 *     Targets: ratio >= 0.95, 429 share < 1 %.
 *  2. memory: peak RSS (VmHWM) of `hooksync launch reveal` over a 100,000-row file (--quick: 5,000), beside
 *     a 1,000-row file in the same run. Target: < 150 MB.
 *
 * Usage: npm run build && node bench/launch.mjs [--quick] [--rows 100000] [--per-interval 20]
 *        [--interval-seconds 2] [--buckets 15]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '../dist/client/create-client.js';
import { createSimulator } from '../dist/simulator/create-simulator.js';
import { runWithPeakRss } from './lib/peak-rss.mjs';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rows: { type: 'string' },
    'per-interval': { type: 'string', default: '20' },
    'interval-seconds': { type: 'string', default: '2' },
    buckets: { type: 'string' },
  },
});
const perInterval = Number(values['per-interval']);
const intervalSeconds = Number(values['interval-seconds']);
const buckets = Number(values.buckets ?? (values.quick ? 5 : 15));
const paceCount = perInterval * (buckets + 1);
const revealRows = Number(values.rows ?? (values.quick ? 5000 : 100_000));
const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'hooksync-bench-launch-'));
const apiKey = randomUUID();

/** Runs the CLI; resolves its exit code, stdout and peak RSS in kB (VmHWM, read until it exits). */
function runCli(args, env) {
  return runWithPeakRss([cli, ...args], { ...process.env, ...env, HOOKSYNC_LOG_LEVEL: 'warn' });
}

/** Launches per second after the first full bucket, from the simulator's start_date of each job. */
function sustainedRate(sim, jobIds) {
  const starts = jobIds
    .map((id) => Date.parse(JSON.parse(sim.jobText(id) ?? '{}').start_date))
    .sort((a, b) => a - b);
  const after = starts.slice(perInterval);
  const spanSeconds = (starts[starts.length - 1] - starts[perInterval - 1]) / 1000;
  return after.length / spanSeconds;
}

const allowed = perInterval / intervalSeconds;
const lines = [];
const sim = await createSimulator({
  seed: 'bench-launch',
  apiKey,
  rate: { perInterval, intervalSeconds },
  balanceUsd: 1_000_000,
});
const env = { HOOKSYNC_API_BASE_URL: sim.url, HOOKSYNC_API_KEY: apiKey };
let pass = true;
try {
  // 1. pacing
  const contacts = ['contact_linkedin'];
  for (let i = 0; i < paceCount; i += 1) contacts.push(`https://www.linkedin.com/in/bench-${i}`);
  writeFileSync(join(dir, 'contacts.csv'), contacts.join('\n'));
  const launched = await runCli(
    [
      'launch',
      'job-change',
      '--from',
      join(dir, 'contacts.csv'),
      '--rate',
      `${perInterval}/${intervalSeconds}`,
      '--json',
    ],
    { ...env, HOOKSYNC_DATABASE_URL: join(dir, 'pace.db') },
  );
  const report = JSON.parse(launched.stdout);
  const launchIds = sim.jobs().map((j) => j.job_id);
  const launchRate = sustainedRate(sim, launchIds);
  const launch429 = report.rate_limited / (report.launched + report.rate_limited);
  await new Promise((resolve) => setTimeout(resolve, intervalSeconds * 1000 + 200));
  sim.reset();

  let baseline429 = 0;
  const counting = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 429) baseline429 += 1;
    return response;
  };
  const client = createClient({
    baseUrl: sim.url,
    apiKey,
    fetch: counting,
    rateLimit: { perInterval, intervalSeconds },
  });
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < paceCount) {
        const i = next++;
        await client.jobChange.launch({ contact_linkedin: `https://www.linkedin.com/in/base-${i}` });
      }
    }),
  );
  const baseIds = sim.jobs().map((j) => j.job_id);
  const baseRate = sustainedRate(sim, baseIds);
  const launchRatio = launchRate / allowed;
  const pacePass = launchRatio >= 0.95 && launch429 < 0.01;
  pass &&= pacePass;
  lines.push(
    `### pacing: ${paceCount} job-change checks at ${perInterval} per ${intervalSeconds} s (${allowed}/s)\n`,
  );
  lines.push(
    '| run | launched | sustained (after the first bucket) | ratio | 429 answers | 429 share | target |',
  );
  lines.push('|---|---|---|---|---|---|---|');
  lines.push(
    `| \`hooksync launch job-change\` | ${report.launched} | ${launchRate.toFixed(2)}/s | ${launchRatio.toFixed(3)} | ` +
      `${report.rate_limited} | ${(launch429 * 100).toFixed(2)} % | ${pacePass ? 'met' : 'MISSED'} (>= 0.95, < 1 %) |`,
  );
  lines.push(
    `| baseline: library client alone, 4 at a time | ${baseIds.length} | ${baseRate.toFixed(2)}/s | ` +
      `${(baseRate / allowed).toFixed(3)} | ${baseline429} | ${((baseline429 / baseIds.length) * 100).toFixed(2)} % | |`,
  );
  sim.reset();

  // 2. memory
  const ips = (count) => {
    const out = ['ip'];
    for (let i = 0; i < count; i += 1) out.push(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    return out.join('\n');
  };
  writeFileSync(join(dir, 'small.csv'), ips(1000));
  writeFileSync(join(dir, 'large.csv'), ips(revealRows));
  const rows = [];
  for (const [name, count] of [
    ['small.csv', 1000],
    ['large.csv', revealRows],
  ]) {
    const started = performance.now();
    const run = await runCli(['launch', 'reveal', '--from', join(dir, name), '--json'], {
      ...env,
      HOOKSYNC_DATABASE_URL: join(dir, `${name}.db`),
    });
    const seconds = (performance.now() - started) / 1000;
    const r = JSON.parse(run.stdout);
    rows.push({ count, launched: r.launched, seconds, peakMb: run.peakKb / 1024, code: run.code });
    sim.reset();
  }
  const large = rows[1];
  const memPass = large.peakMb < 150 && large.launched === revealRows;
  pass &&= memPass;
  lines.push(`\n### memory: \`hooksync launch reveal\` over a file of IPs (SQLite, one process)\n`);
  lines.push('| rows | launched | time | reveals per second | peak RSS | target |');
  lines.push('|---|---|---|---|---|---|');
  for (const row of rows) {
    lines.push(
      `| ${row.count.toLocaleString('en')} | ${row.launched} | ${row.seconds.toFixed(0)} s | ` +
        `${(row.launched / row.seconds).toFixed(0)} | ${row.peakMb.toFixed(0)} MB | ` +
        `${row === large ? `${memPass ? 'met' : 'MISSED'} (< 150 MB)` : 'baseline (same run)'} |`,
    );
  }
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(lines.join('\n'));
process.exitCode = pass ? 0 : 1;

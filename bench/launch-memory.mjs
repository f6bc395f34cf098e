#!/usr/bin/env node
/**
 * Peak RSS (VmHWM, polled every 100 ms) of `hooksync launch reveal` over files of 1..n IPs against the
 * simulator (in this process), for each built CLI given, alternately in one run: the curve of peak RSS
 * against rows, before and after a change (copy an earlier `dist/` and its package.json aside to compare).
 *
 * Usage: npm run build && node bench/launch-memory.mjs [--rows 500,2000,8000] [--dist dist[,other/dist]]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSimulator } from '../dist/simulator/create-simulator.js';
import { runWithPeakRss } from './lib/peak-rss.mjs';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '500,2000,8000' }, dist: { type: 'string', default: 'dist' } },
});
const counts = values.rows.split(',').map(Number);
const dists = values.dist.split(',').map((d) => resolve(d));
const apiKey = randomUUID();
const sim = await createSimulator({
  seed: 'bench-launch-memory',
  apiKey,
  rate: { perInterval: 1000, intervalSeconds: 1 },
  balanceUsd: 1e9,
});
const dir = mkdtempSync(join(tmpdir(), 'hooksync-bench-launch-memory-'));

async function run(cli, file, database) {
  const started = performance.now();
  const r = await runWithPeakRss([cli, 'launch', 'reveal', '--from', file, '--json'], {
    ...process.env,
    HOOKSYNC_API_BASE_URL: sim.url,
    HOOKSYNC_API_KEY: apiKey,
    HOOKSYNC_DATABASE_URL: database,
    HOOKSYNC_LOG_LEVEL: 'warn',
  });
  let launched = 'no report';
  try {
    launched = JSON.parse(r.stdout).launched;
  } catch {}
  return { code: r.code, launched, peakMb: r.peakKb / 1024, seconds: (performance.now() - started) / 1000 };
}

console.log('| rows | CLI | launched | exit | peak RSS | time |');
console.log('|---|---|---|---|---|---|');
try {
  for (const count of counts) {
    const ips = ['ip'];
    for (let i = 0; i < count; i += 1) ips.push(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const file = join(dir, `${count}.csv`);
    writeFileSync(file, ips.join('\n'));
    for (const dist of dists) {
      const r = await run(join(dist, 'cli/main.js'), file, join(dir, `${randomUUID()}.db`));
      console.log(
        `| ${count.toLocaleString('en')} | ${dist} | ${r.launched} | ${r.code} | ${r.peakMb.toFixed(1)} MB | ${r.seconds.toFixed(0)} s |`,
      );
      sim.reset();
    }
  }
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}

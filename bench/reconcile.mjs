#!/usr/bin/env node
/**
 * Reconcile pacing benchmark: how close the finder rate comes to the allowed rate, and how many requests
 * are answered 429, over a compressed window (default 20 requests per 2 s for 2 minutes; --quick: 20 s).
 * The simulator holds more missed jobs than the window can fetch; reconcile learns the key's rate from
 * the key list and runs until the window ends. Targets: ratio >= 0.95, 429 share < 1 %.
 *
 * Usage: npm run build && node bench/reconcile.mjs [--quick] [--per-interval 20] [--interval-seconds 2]
 *        [--window-seconds 120]
 * Imports the built library from dist/.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '../dist/client/create-client.js';
import { runReconcile } from '../dist/reconcile/run-reconcile.js';
import { createSimulator } from '../dist/simulator/create-simulator.js';
import { createJobStore } from '../dist/storage/job-store/job-store.js';
import { recordExpectedJobs } from '../dist/storage/ledger/record-expected-jobs.js';
import { openMigratedDatabase } from '../dist/storage/open-migrated-database.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'per-interval': { type: 'string', default: '20' },
    'interval-seconds': { type: 'string', default: '2' },
    'window-seconds': { type: 'string' },
  },
});
const perInterval = Number(values['per-interval']);
const intervalSeconds = Number(values['interval-seconds']);
const windowSeconds = Number(values['window-seconds'] ?? (values.quick ? 20 : 120));
const allowedPerSecond = perInterval / intervalSeconds;
// More jobs than the window can fetch, so that reconcile is never short of work.
const jobCount = Math.ceil(allowedPerSecond * windowSeconds * 1.2) + perInterval;
const LAUNCH_CONCURRENCY = 8;

const dir = mkdtempSync(join(tmpdir(), 'hooksync-bench-reconcile-'));
const apiKey = randomUUID();
const shared = { seed: 'bench-reconcile', apiKey, dbFile: join(dir, 'sim-jobs.jsonl') };

async function seedJobs() {
  const seeding = await createSimulator({ ...shared, rate: { perInterval: 1_000_000, intervalSeconds: 1 } });
  const jobs = [];
  let next = 0;
  const launchOne = async () => {
    while (next < jobCount) {
      const i = next++;
      const kind = i % 2 === 0 ? 'search_contact' : 'job_change';
      const body =
        kind === 'search_contact'
          ? { domain: `acme-${i}.com`, page_size: 1 }
          : { contact_full_name: `Jane Doe ${i}` };
      const response = await fetch(
        `${seeding.url}/v1/${kind === 'search_contact' ? 'search/contact' : 'job/change'}`,
        {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
      );
      const envelope = await response.json();
      jobs.push({ job_id: envelope.input.task.job_id, kind });
    }
  };
  try {
    await Promise.all(Array.from({ length: LAUNCH_CONCURRENCY }, launchOne));
  } finally {
    await seeding.close();
  }
  return jobs;
}

function countingFetch() {
  const stats = { finder: 0, finder429: 0, sentMs: [] };
  const wrapped = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url);
    const finder =
      (init?.method ?? 'GET') === 'GET' &&
      (url.pathname === '/v1/job/change' || url.pathname === '/v1/search/contact');
    const sentMs = performance.now();
    const response = await fetch(input, init);
    if (finder) {
      stats.finder += 1;
      stats.sentMs.push(sentMs);
      if (response.status === 429) stats.finder429 += 1;
    }
    return response;
  };
  return { fetch: wrapped, stats };
}

const jobs = await seedJobs();
const sim = await createSimulator({ ...shared, rate: { perInterval, intervalSeconds } });
const database = await openMigratedDatabase(join(dir, 'hooksync.db'));
const store = createJobStore({ database });
let report;
const counting = countingFetch();
try {
  await recordExpectedJobs(database.db, jobs, 'track', new Date());
  const client = createClient({
    baseUrl: sim.url,
    apiKey,
    fetch: counting.fetch,
    // A high ceiling: the rate that governs is the one learned from the key list.
    rateLimit: { perInterval: 1_000_000, intervalSeconds: 1 },
  });
  const startedMs = performance.now();
  const signal = AbortSignal.timeout(windowSeconds * 1000);
  report = await runReconcile({ db: database.db, client, store, signal }, { olderThanMs: 0 });
  report.window_ms = performance.now() - startedMs;
  report.ended_ms = performance.now();
} finally {
  await store.close();
  await database.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}

const { stats } = counting;
// Finder requests per second from the first finder request to the end of the window (the key list and
// the database work before it are not the finders' time), and over the second half alone (steady state).
const firstMs = stats.sentMs[0];
const spanSeconds = (report.ended_ms - firstMs) / 1000;
const sustained = stats.finder / spanSeconds;
const halfMs = firstMs + (report.ended_ms - firstMs) / 2;
const steady = stats.sentMs.filter((t) => t >= halfMs).length / (spanSeconds / 2);
const ratio = sustained / allowedPerSecond;
const share429 = stats.finder === 0 ? 0 : stats.finder429 / stats.finder;
const pass = ratio >= 0.95 && share429 < 0.01;

console.log(`## reconcile pacing (${values.quick ? 'quick' : 'full'})\n`);
console.log(
  '| window | allowed | learned pacing | finder requests | stored | sustained | ratio | ratio, 2nd half | 429 share | target |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
console.log(
  `| ${windowSeconds} s | ${perInterval} per ${intervalSeconds} s (${allowedPerSecond.toFixed(2)}/s) | ` +
    `${report.pacing.map((l) => `${l.perInterval}/${l.intervalSeconds} s`).join(' + ')} | ${stats.finder} | ` +
    `${report.recovered} | ${sustained.toFixed(2)}/s | ${ratio.toFixed(3)} | ${(steady / allowedPerSecond).toFixed(3)} | ` +
    `${(share429 * 100).toFixed(2)} % | ` +
    `${pass ? 'met' : 'MISSED'} (>= 0.95, < 1 %) |`,
);
console.log(
  `\nrun status ${report.status} after ${(report.window_ms / 1000).toFixed(1)} s; ${jobCount} jobs seeded.`,
);
process.exitCode = pass ? 0 : 1;

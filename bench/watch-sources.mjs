#!/usr/bin/env node
/**
 * Memory of a watch whose source is a HubSpot portal (`"from": { "hubspot": … }`), against the HubSpot stand-in
 * in a child process of its own (bench/lib/hubspot-stand-in.mjs). A second child reads the source once, as a
 * cycle's count does (watches/watched-rows.ts countSource: every contact listed 100 a page through the
 * destination's client and shared pace, the primary companies' domains looked up, each request built and
 * keyed, the keys looked up in SQLite), for a portal of 10,000 and then of 100,000 contacts (--quick: 2,000
 * and 20,000); each child's peak RSS (VmHWM) side by side. A source held whole would grow with the portal;
 * a streamed one stays flat. One contact in 10 has a primary company (1,000 companies).
 *
 * `--heap-mb N` caps the reader's V8 old space (`--max-old-space-size`): a reader that held the source whole
 * would run out of heap; one that streams it only collects its garbage sooner.
 *
 * Usage: npm run build && node bench/watch-sources.mjs [--quick] [--heap-mb 48]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDestinations } from '../dist/destinations/load-destinations.js';
import { openMigratedDatabase } from '../dist/storage/open-migrated-database.js';
import { parseWatches } from '../dist/watches/load-watches.js';
import { planForCycle } from '../dist/watches/watch-plan.js';
import { countSource } from '../dist/watches/watched-rows.js';
import { startStandInChild } from './lib/hubspot-stand-in.mjs';
import { runWithPeakRss } from './lib/peak-rss.mjs';

const { values, positionals } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    child: { type: 'boolean', default: false },
    'heap-mb': { type: 'string' },
  },
  allowPositionals: true,
});

/** In the child: read the source once; print what it counted and how long it took. */
async function child(dir, url, token, label) {
  const destinations = await parseDestinations(
    {
      destinations: [
        { name: 'crm', type: 'hubspot', token: { env: 'BENCH_HS_TOKEN' }, base_url: url, rate: '10000/1s' },
      ],
    },
    { BENCH_HS_TOKEN: token },
    'bench destinations',
  );
  const [watch] = parseWatches(
    {
      watches: [
        { name: 'bench', launch: 'job-change', from: { hubspot: { destination: 'crm' } }, every: '30d' },
      ],
    },
    { label: 'bench', baseDir: dir, nowMs: Date.now(), destinations },
  );
  const database = await openMigratedDatabase(join(dir, `${label}.db`));
  const started = performance.now();
  const count = await countSource(database.db, watch, planForCycle(watch, Date.now(), undefined), 1);
  const seconds = (performance.now() - started) / 1000;
  await database.close();
  process.stdout.write(`${JSON.stringify({ valid: count.valid, invalid: count.invalid, seconds })}\n`);
}

async function main() {
  const sizes = values.quick ? [2_000, 20_000] : [10_000, 100_000];
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-bench-watch-sources-'));
  const standIn = await startStandInChild({ tenSecondly: 100_000_000, daily: 100_000_000 });
  const rows = [];
  try {
    let seeded = 0;
    for (const size of sizes) {
      await standIn.seedContacts({
        from: seeded,
        count: size - seeded,
        companies: seeded === 0 ? 1_000 : 0,
        associateEvery: 10,
      });
      seeded = size;
      const script = fileURLToPath(import.meta.url);
      const heap = values['heap-mb'] === undefined ? [] : [`--max-old-space-size=${values['heap-mb']}`];
      const run = await runWithPeakRss(
        [...heap, script, '--child', dir, standIn.url, standIn.token, `p${size}`],
        { ...process.env },
      );
      if (run.code !== 0) throw new Error(`child for ${size} contacts exited ${run.code}`);
      const result = JSON.parse(run.stdout.trim().split('\n').at(-1));
      rows.push({ size, ...result, peakMb: run.peakKb / 1024 });
    }
    const summary = await standIn.summary();
    console.log('| portal (contacts) | read (valid) | seconds | contacts/s | peak RSS of the reader |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) {
      console.log(
        `| ${row.size.toLocaleString('en')} | ${row.valid.toLocaleString('en')} | ${row.seconds.toFixed(1)} | ${Math.round(row.valid / row.seconds).toLocaleString('en')} | ${row.peakMb.toFixed(1)} MB |`,
      );
    }
    const [small, large] = rows;
    console.log(
      `\npeak RSS ${large.size.toLocaleString('en')} / ${small.size.toLocaleString('en')} contacts: ${(large.peakMb / small.peakMb).toFixed(2)}x for ${large.size / small.size}x the contacts; stand-in calls ${summary.calls}, 429s ${summary.rateLimited}`,
    );
  } finally {
    await standIn.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.child) {
  const [dir, url, token, label] = positionals;
  await child(dir, url, token, label);
} else {
  await main();
}

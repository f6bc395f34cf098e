#!/usr/bin/env node
// The dispatcher's own cost per event, without HTTP: a destination that answers "delivered" at once, so
// that the lane (claim, attempt, outcome, record) is all that runs. With --base-dist, the same backlog is
// dispatched by this build and by another one, alternating in one process (same load for both).
//
//   npm run build && node bench/lane-overhead.mjs --events 5000 --rounds 4 --base-dist ../main/dist
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pendingEvents, storeReveals } from './lib/outbox-jobs.mjs';
import { formatInteger } from './lib/stats.mjs';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '16' },
    'base-dist': { type: 'string' },
  },
});
const events = Number(flags.events);
const concurrency = Number(flags.concurrency);
const builds = [['this build', new URL('../dist/', import.meta.url)]];
if (flags['base-dist'])
  builds.push(['base build', new URL(`file://${join(process.cwd(), flags['base-dist'])}/`)]);

async function dispatchOnce(dist, dir) {
  const { openMigratedDatabase } = await import(new URL('storage/open-migrated-database.js', dist).href);
  const { createDispatcher } = await import(new URL('destinations/create-dispatcher.js', dist).href);
  const database = await openMigratedDatabase(join(dir, `lane-${Math.random()}.db`));
  const destination = {
    name: 'bench',
    type: 'webhook',
    template: undefined,
    dispatch: { timeoutMs: 10_000, scheduleMs: [5_000], concurrency, rate: undefined, kinds: undefined },
    create: () => ({
      kind: 'outbox',
      template: undefined,
      deliver: async () => ({ outcome: 'delivered', status: 204 }),
      ping: async () => ({ outcome: 'delivered', status: 204 }),
    }),
  };
  const dispatcher = createDispatcher({ database, destinations: [destination], receiving: () => 0 });
  await dispatcher.sync();
  await storeReveals(database, events);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  dispatcher.start();
  while ((await pendingEvents(database)) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await dispatcher.stop();
  await database.close();
  return { rate: (events * 1000) / elapsedMs, cpuMsPerEvent: (cpu.user + cpu.system) / 1000 / events };
}

const dir = await mkdtemp(join(tmpdir(), 'hooksync-bench-lane-'));
const results = new Map(builds.map(([name]) => [name, []]));
try {
  for (let round = 0; round < Number(flags.rounds); round += 1) {
    for (const [name, dist] of round % 2 === 0 ? builds : [...builds].reverse()) {
      const result = await dispatchOnce(dist, dir);
      results.get(name).push(result);
      process.stderr.write(
        `${name}: ${formatInteger(result.rate)} events/s, ${result.cpuMsPerEvent.toFixed(3)} ms CPU/event\n`,
      );
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const lines = ['| build | rounds | events/s (median) | CPU ms/event (median) |', '|---|---:|---:|---:|'];
for (const [name, list] of results) {
  lines.push(
    `| ${name} | ${list.length} | ${formatInteger(median(list.map((r) => r.rate)))} | ${median(list.map((r) => r.cpuMsPerEvent)).toFixed(3)} |`,
  );
}
if (builds.length === 2) {
  const [a, b] = [...results.values()];
  lines.push(
    '',
    `This / base: ${(median(a.map((r) => r.rate)) / median(b.map((r) => r.rate))).toFixed(2)}× events/s, ` +
      `${(median(a.map((r) => r.cpuMsPerEvent)) / median(b.map((r) => r.cpuMsPerEvent))).toFixed(2)}× CPU per event (same process, alternating).`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);

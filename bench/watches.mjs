#!/usr/bin/env node
/**
 * Watches benchmark, two parts, against the simulator in this process (built modules from dist/):
 *  1. rate: one cycle of 1,000 job-change checks run at once (as `watches run` does: not spread) through a
 *     paced client that learned the simulator's raised key rate (default 20 per 2 s, so the cycle takes a
 *     minute or two): checks per second after the first full bucket as a share of the allowed rate, and
 *     the 429 answers (counted on the client's fetch). Target: ratio >= 0.95, no 429.
 *  2. memory: a child process plans and spreads one cycle of a 100,000-row watch (--quick: 10,000): it reads
 *     the file, builds and keys every row and looks each up, and spreads the checks over the period on a
 *     fake clock. 99,000 rows are recorded as checked in this cycle beforehand (by this process, before the
 *     child starts), so the child's cycle buys 1,000 and walks all 100,000 (a cycle taken up near its end).
 *     Three times: the cycle in the child's main thread (as `serve` ran a watch before it ran in a bounded
 *     thread), then in a worker thread under the V8 limits of `serve`'s thread without a ceiling (as
 *     `serve` runs a watch), then under those of `hooksync watches run` (cli/bounded-thread.ts). Peak RSS
 *     (VmHWM). Target: < 150 MB.
 *
 * Usage: npm run build && node bench/watches.mjs [--quick] [--rows 100000] [--checks 1000]
 *        [--per-interval 20] [--interval-seconds 2] [--memory-mb N (serve's thread's ceiling; default 0: none)]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import { runWithPeakRss } from './lib/peak-rss.mjs';

// The built modules are imported where they are used, so that the memory child's main thread loads none
// of them when it runs the cycle in a bounded thread (as `hooksync watches run` does).
const dist = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);
const { values } = parseArgs({
  args: isMainThread ? process.argv.slice(2) : [],
  options: {
    quick: { type: 'boolean', default: false },
    thread: { type: 'string' },
    'memory-mb': { type: 'string', default: '0' },
    rows: { type: 'string' },
    checks: { type: 'string' },
    'per-interval': { type: 'string', default: '20' },
    'interval-seconds': { type: 'string', default: '2' },
    'child-memory': { type: 'string' },
  },
});

const { pino } = await import('pino');
const silent = pino({ level: 'silent' });

function writeContacts(path, rows) {
  const lines = ['Email,Id'];
  for (let i = 0; i < rows; i += 1) lines.push(`contact.${i}@bench${i % 500}.example,003X${i}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
}

async function watchOf(dir, every) {
  const { parseWatches } = await dist('watches/load-watches.js');
  return parseWatches(
    {
      watches: [
        {
          name: 'bench',
          launch: 'job-change',
          from: { file: 'contacts.csv' },
          map: { professional_email: 'Email' },
          carry: { sf_id: 'Id' },
          every,
        },
      ],
    },
    { label: 'bench', baseDir: dir, nowMs: Date.now() },
  )[0];
}

/** Part 2, in a child process: plan and spread a cycle of `rows` rows, `buy` of them not yet checked. */
/** Setup, in this process: the cycle begun, every row but the last `buy` recorded as checked in it. */
async function seedMemory(dir, rows, buy) {
  const { openMigratedDatabase } = await dist('storage/open-migrated-database.js');
  const { cycleToRunNow } = await dist('watches/start-watches.js');
  const { planForCycle } = await dist('watches/watch-plan.js');
  const { watchedRows } = await dist('watches/watched-rows.js');
  const database = await openMigratedDatabase(join(dir, 'memory.db'));
  const watch = await watchOf(dir, '30d');
  const nowMs = Date.now();
  const cycle = await cycleToRunNow(database.db, watch, nowMs);
  const plan = planForCycle(watch, Date.parse(cycle.started_at), undefined);
  let batch = [];
  let seen = 0;
  await database.db.transaction().execute(async (trx) => {
    for await (const row of watchedRows(watch, plan, database.db)) {
      if (!('key' in row)) continue;
      seen += 1;
      if (seen > rows - buy) break;
      batch.push({
        watch: 'bench',
        row_key: row.key,
        custom_fields: '{}',
        state: '{"status":"no_change","company_domain":null,"company_name":null,"title":null}',
        checked_cycle: cycle.cycle,
        checked_at: new Date(nowMs).toISOString(),
        job_id: null,
        first_seen_at: new Date(nowMs).toISOString(),
      });
      if (batch.length >= 100) {
        await trx.insertInto('watch_rows').values(batch).execute();
        batch = [];
      }
    }
    if (batch.length > 0) await trx.insertInto('watch_rows').values(batch).execute();
  });
  await database.close();
}

/** Part 2, in a child process: take the seeded cycle up and run it, spread on a fake clock. */
async function childMemory(dir, simUrl, apiKey) {
  const { runBenchCycle, steppingClock } = await import('./lib/bench-cycle.mjs');
  const { createJobStore } = await dist('storage/job-store/job-store.js');
  const { openMigratedDatabase } = await dist('storage/open-migrated-database.js');
  const { cycleToRunNow } = await dist('watches/start-watches.js');
  const database = await openMigratedDatabase(join(dir, 'memory.db'));
  const store = createJobStore({ database, logger: silent });
  const watch = await watchOf(dir, '30d');
  const clock = steppingClock();
  const cycle = await cycleToRunNow(database.db, watch, clock.now());
  const { summary, seconds } = await runBenchCycle({
    watch,
    cycle,
    db: database.db,
    store,
    simUrl,
    apiKey,
    logger: silent,
    clock,
    spread: true,
  });
  await store.close();
  await database.close();
  return { summary, seconds };
}

/**
 * The memory child: the cycle in its main thread (the process's own V8 heap, which V8 lets grow with the
 * garbage of a long walk), or (--thread serve|launch) in a worker thread under the limits of that command's
 * bounded thread (cli/bounded-thread.ts; serve's under --memory-mb, default none), the main thread loading
 * none of the cycle.
 */
async function childMemoryMain(args, thread) {
  if (thread === undefined) return childMemory(...args);
  const { boundedResourceLimits } = await dist('cli/bounded-thread.js');
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { args },
    resourceLimits: boundedResourceLimits(thread, { HOOKSYNC_MEMORY_MB: values['memory-mb'] }),
  });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

function runChild(args) {
  // Stdout carries the result line only.
  return runWithPeakRss([new URL(import.meta.url).pathname, ...args], process.env);
}

async function rate(dir, checks, perInterval, intervalSeconds) {
  const { createClient } = await dist('client/create-client.js');
  const { createLauncher } = await dist('launch/create-launcher.js');
  const { createSimulator } = await dist('simulator/create-simulator.js');
  const { createJobStore } = await dist('storage/job-store/job-store.js');
  const { openMigratedDatabase } = await dist('storage/open-migrated-database.js');
  const { runCycle } = await dist('watches/run-cycle.js');
  const { cycleToRunNow } = await dist('watches/start-watches.js');
  const sim = await createSimulator({ seed: 4, rate: { perInterval, intervalSeconds } });
  const database = await openMigratedDatabase(join(dir, 'rate.db'));
  const store = createJobStore({ database, logger: silent });
  writeContacts(join(dir, 'contacts.csv'), checks);
  const watch = await watchOf(dir, '1h');
  let answered429 = 0;
  const times = [];
  const counting = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (response.status === 429) answered429 += 1;
    else if (init?.method === 'POST') times.push(performance.now());
    return response;
  };
  // The ceiling is the simulator's raised rate (serve keeps the interface's 50 a minute); the key's own
  // rate is learned from the key list, as `watches run` does.
  const client = createClient({
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    logger: silent,
    fetch: counting,
    rateLimit: { perInterval, intervalSeconds },
  });
  await client.learnRateLimit();
  const cycle = await cycleToRunNow(database.db, watch, Date.now());
  const summary = await runCycle(
    watch,
    cycle,
    {
      db: database.db,
      launcher: createLauncher({ client, store, db: database.db }),
      logger: silent,
      clock: { now: Date.now, sleep: async () => true },
      webhookUrl: undefined,
    },
    { spread: false, signal: new AbortController().signal },
  );
  await store.close();
  await database.close();
  await sim.close();
  times.sort((a, b) => a - b);
  const after = times.slice(perInterval);
  const seconds = (after.at(-1) - times[perInterval - 1]) / 1000;
  const sustained = after.length / seconds;
  const allowed = perInterval / intervalSeconds;
  return { summary, answered429, sustained, allowed, ratio: sustained / allowed };
}

async function memory(dir, rows, thread) {
  const { createSimulator } = await dist('simulator/create-simulator.js');
  const buy = Math.min(1000, rows);
  rmSync(join(dir, 'memory.db'), { force: true });
  rmSync(join(dir, 'memory.db-wal'), { force: true });
  rmSync(join(dir, 'memory.db-shm'), { force: true });
  const sim = await createSimulator({ seed: 3, rate: { perInterval: 100_000, intervalSeconds: 1 } });
  let child;
  try {
    await seedMemory(dir, rows, buy);
    const args = ['--child-memory', `${dir},${sim.url},${sim.apiKey}`];
    child = await runChild(thread ? [...args, '--thread', thread, '--memory-mb', values['memory-mb']] : args);
  } finally {
    await sim.close();
  }
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
  const peakMb = child.peakKb / 1024;
  return { buy, result, peakMb, pass: child.code === 0 && peakMb < 150 && result.summary.checked === buy };
}

if (!isMainThread) {
  const { parentPort } = await import('node:worker_threads');
  parentPort.postMessage(await childMemory(...workerData.args));
} else if (values['child-memory'] !== undefined) {
  const result = await childMemoryMain(values['child-memory'].split(','), values.thread);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const rows = Number(values.rows ?? (values.quick ? 10_000 : 100_000));
  const checks = Number(values.checks ?? (values.quick ? 200 : 1000));
  const perInterval = Number(values['per-interval']);
  const intervalSeconds = Number(values['interval-seconds']);
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-bench-watches-'));
  try {
    const paced = await rate(dir, checks, perInterval, intervalSeconds);
    const pacedPass = paced.ratio >= 0.95 && paced.answered429 === 0 && paced.summary.checked === checks;
    writeContacts(join(dir, 'contacts.csv'), rows);
    const inProcess = await memory(dir, rows, undefined);
    const served = await memory(dir, rows, 'serve');
    const bounded = await memory(dir, rows, 'launch');
    const memoryRow = (how, m) =>
      `| memory: a ${rows.toLocaleString('en')}-row watch planned and spread (${m.buy} bought, the rest already checked), ${how} | peak RSS ${m.peakMb.toFixed(1)} MB; ${m.result.summary.checked} rows bought, all ${m.result.summary.rows.toLocaleString('en')} walked, in ${m.result.seconds.toFixed(1)} s | ${m.pass ? 'met' : 'MISSED'} (< 150 MB) |`;
    const lines = [
      `Command: \`node bench/watches.mjs${values.quick ? ' --quick' : ''}${values['memory-mb'] === '0' ? '' : ` --memory-mb ${values['memory-mb']}`}\` (rate ${perInterval} per ${intervalSeconds} s; the machine is shared with other work: same-run figures only)`,
      '',
      '| part | figure | target |',
      '|---|---|---|',
      `| rate: ${checks} job-change checks in one cycle | ${paced.summary.checked} checked, ${paced.sustained.toFixed(2)}/s sustained after the first bucket of ${paced.allowed}/s allowed: ratio ${paced.ratio.toFixed(3)}; ${paced.answered429} answers 429 | ${pacedPass ? 'met' : 'MISSED'} (>= 0.95, no 429) |`,
      memoryRow("in the process's main thread (as `serve` ran a watch before its bounded thread)", inProcess),
      memoryRow(
        `in a thread under \`serve\`'s V8 limits ${values['memory-mb'] === '0' ? 'without a ceiling' : `with HOOKSYNC_MEMORY_MB=${values['memory-mb']}`} (as \`serve\` runs a watch)`,
        served,
      ),
      memoryRow("in a thread under `watches run`'s V8 limits (cli/bounded-thread.ts)", bounded),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    process.exitCode = pacedPass && served.pass && bounded.pass ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

#!/usr/bin/env node
/**
 * Receiver benchmark: `hooksync serve` (startReceiver from dist/, on SQLite and on Postgres) against five
 * baselines in the same run, on the same pre-signed deliveries, alternating server by server in every
 * round: bare node:http (the ceiling), express 5 no-op, node:http with verification only (the ceiling of a
 * verifying receiver), the minimal node:http + jose + better-sqlite3 handler (the floor the issue names)
 * and the naive express + jose + better-sqlite3 handler. Every server and the load generator (autocannon)
 * run in processes of their own.
 *
 *   npm run build && node bench/receiver.mjs            # 5 rounds; per server: 2–3 s warm-up, 6 s window
 *   node bench/receiver.mjs --quick                     # 2 rounds; 0.5–1.5 s warm-up, 1.5–2.5 s window
 *   node bench/receiver.mjs --rounds 3 --duration 5 --payloads reveal --variants naive,hooksync
 *   node bench/receiver.mjs --payloads reveal,page   # page: a realistic 250-person page (varied people)
 *   options: --connections 50  --warmup 1  --pg-url postgres://…  --no-pg
 *            --base-dist DIR  the dist/ of another build (default: $HOOKSYNC_BENCH_REFERENCE_DIST), served
 *                             as the variant hooksync-base in every round: the ratio new / reference, in
 *                             req/s and in server CPU per request, shows a regression of the hot path
 *            --cpu-prof DIR   writes a V8 CPU profile of every hooksync server process into DIR
 *            --node-flags=…   node and V8 flags for every server process (e.g. --node-flags=--trace-gc),
 *                             their output on stderr
 *            --sender retrying  the service's retrying sender (fetch; 429/500/502/504 and network errors
 *                             retried after 1, 2, 4, 8, 16 s) instead of autocannon (bench/receiver-load.mjs)
 *
 * Prints markdown tables on stdout (progress on stderr): req/s, p50/p99 latency, server CPU per request,
 * the ratios the issue targets, and the durability check: right after each round, while the server still
 * runs, its jobs table must hold exactly the job_ids it answered 2xx (acknowledged means committed, and
 * nothing twice). Exits 1 when that check fails.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { forkChild } from './lib/child-channel.mjs';
import { startStandInChild } from './lib/hubspot-stand-in.mjs';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { createBenchKey } from './lib/signing-key.mjs';
import { formatInteger, formatMs, formatRatio, formatSummary, median, summarize } from './lib/stats.mjs';

const SERVER_SCRIPT = new URL('./receiver-server.mjs', import.meta.url);
const LOAD_SCRIPT = new URL('./receiver-load.mjs', import.meta.url);
const THREAD_IDS_SCRIPT = new URL('./lib/thread-ids.mjs', import.meta.url);
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The servers, in table order; `base` is the variant receiver-server.mjs starts. */
const VARIANTS = {
  bare: { base: 'bare', label: 'bare node:http, reads body, 200 (ceiling)', stores: false },
  express: { base: 'express', label: 'express 5 no-op (express.raw(), 200)', stores: false },
  verify: {
    base: 'verify',
    label: 'node:http + SHA-256 + Ed25519, nothing parsed or stored (verification ceiling)',
    stores: false,
  },
  minimal: {
    base: 'minimal',
    label: 'minimal: node:http + jose + SHA-256 + one better-sqlite3 transaction (floor)',
    stores: 'sqlite',
  },
  naive: {
    base: 'naive',
    label: 'naive: express + jose + SHA-256 + better-sqlite3 (SQLite)',
    stores: 'sqlite',
  },
  hooksync: { base: 'hooksync', label: 'hooksync serve (SQLite)', stores: 'sqlite' },
  'hooksync-dest': {
    base: 'hooksync',
    label: 'hooksync serve (SQLite) + one webhook destination (a local consumer, 204)',
    stores: 'sqlite',
    destination: true,
  },
  'hooksync-hubspot': {
    base: 'hooksync',
    label: 'hooksync serve (SQLite) + one hubspot destination (the stand-in, Free limits)',
    stores: 'sqlite',
    hubspot: true,
  },
  'hooksync-pg': { base: 'hooksync', label: 'hooksync serve (Postgres)', stores: 'postgres' },
  // OpenTelemetry on (issue 40): every delivery traced, exported over OTLP/HTTP to a local collector.
  'hooksync-otel': {
    base: 'hooksync',
    label: 'hooksync serve (SQLite), OTel on (OTLP/HTTP to a local collector)',
    stores: 'sqlite',
    otel: true,
  },
  // Under a memory ceiling (issue 29): --memory-mb N, default 256.
  'hooksync-ceiling': {
    base: 'hooksync',
    label: 'hooksync serve (SQLite), HOOKSYNC_MEMORY_MB=',
    stores: 'sqlite',
    ceiling: true,
  },
  // Another build of hooksync (--base-dist DIR), e.g. the commit before a change, as the same run's baseline.
  'hooksync-base': {
    base: 'hooksync',
    label: 'hooksync serve, --base-dist build (SQLite)',
    stores: 'sqlite',
  },
  // The reference build with the same webhook destination, beside hooksync-dest (issue 44: the wake).
  'hooksync-base-dest': {
    base: 'hooksync',
    label: 'hooksync serve, --base-dist build (SQLite) + one webhook destination',
    stores: 'sqlite',
    destination: true,
  },
  // The same reference build under the memory ceiling (--memory-mb), beside hooksync-ceiling.
  'hooksync-base-ceiling': {
    base: 'hooksync',
    label: 'hooksync serve, --base-dist build (SQLite), HOOKSYNC_MEMORY_MB=',
    stores: 'sqlite',
    ceiling: true,
  },
};

/**
 * Deliveries made per round: enough for the fastest server over warm-up + timed window on this class of
 * machine (the bare ceiling may still run out first; its row then says so). Signing costs ~65 µs a
 * delivery: the body hash continues from the hash of the part before the job_id, taken once per pool.
 */
const POOL_PER_SECOND = { reveal: 12_000, search: 6000, page: 3000 };
/**
 * The 340 KB page needs a longer warm-up: at 50 connections a slow server's queue takes seconds to fill,
 * and the window must see the steady state, not the ramp.
 */
const FULL_TIMINGS = {
  reveal: { warmupMs: 2000, windowMs: 6000 },
  search: { warmupMs: 3000, windowMs: 6000 },
  page: { warmupMs: 3000, windowMs: 6000 },
};
const QUICK_TIMINGS = {
  reveal: { warmupMs: 500, windowMs: 1500 },
  search: { warmupMs: 1500, windowMs: 2500 },
  page: { warmupMs: 1500, windowMs: 2500 },
};
/** Issue targets: hooksync / baseline req/s. */
const TARGETS = {
  reveal: [
    ['naive', 2.0],
    ['express', 0.8],
  ],
  search: [['naive', 2.0]],
  // Issue 13: a realistic page acknowledged and normalized at least as fast as the naive handler.
  page: [['naive', 1.0]],
};

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '50' },
    payloads: { type: 'string', default: 'reveal,search,page' },
    variants: { type: 'string' },
    'pg-url': { type: 'string' },
    'no-pg': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'node-flags': { type: 'string' },
    'base-dist': { type: 'string' },
    'memory-mb': { type: 'string', default: '256' },
    // autocannon (default), or the service's own behaviour: fetch, retries after 1, 2, 4, 8, 16 s.
    sender: { type: 'string', default: 'autocannon' },
  },
});
// The profiles' directory exists before the first server writes its window beside a profile.
if (flags['cpu-prof'] !== undefined) mkdirSync(flags['cpu-prof'], { recursive: true });
VARIANTS['hooksync-ceiling'].label += flags['memory-mb'];
VARIANTS['hooksync-base-ceiling'].label += flags['memory-mb'];
const quick = flags.quick;
const rounds = Number(flags.rounds ?? (quick ? 2 : 5));
/** Warm-up and timed window per payload, ms; --warmup and --duration (seconds) override both. */
const TIMINGS = Object.fromEntries(
  Object.entries(quick ? QUICK_TIMINGS : FULL_TIMINGS).map(([kind, timing]) => [
    kind,
    {
      warmupMs: flags.warmup === undefined ? timing.warmupMs : Number(flags.warmup) * 1000,
      windowMs: flags.duration === undefined ? timing.windowMs : Number(flags.duration) * 1000,
    },
  ]),
);
const connections = Number(flags.connections);
const payloads = flags.payloads.split(',').filter(Boolean);
/** The reference build (issue 31): its dist/, served as hooksync-base beside this build in every round. */
const baseDist = flags['base-dist'] ?? (process.env.HOOKSYNC_BENCH_REFERENCE_DIST || undefined);
let variants = (
  flags.variants ??
  Object.keys(VARIANTS)
    .filter((name) => !name.startsWith('hooksync-base') || baseDist !== undefined)
    .join(',')
)
  .split(',')
  .filter(Boolean);
for (const name of variants) if (!(name in VARIANTS)) throw new TypeError(`unknown variant ${name}`);
if (variants.some((name) => name.startsWith('hooksync-base')) && !baseDist) {
  throw new TypeError(
    'the variant hooksync-base needs --base-dist DIR or HOOKSYNC_BENCH_REFERENCE_DIST (the dist/ of another build)',
  );
}
if (baseDist !== undefined) {
  VARIANTS['hooksync-base'].label = `hooksync serve, reference build ${baseDist} (SQLite)`;
  VARIANTS['hooksync-base-ceiling'].label =
    `hooksync serve, reference build ${baseDist} (SQLite), HOOKSYNC_MEMORY_MB=${flags['memory-mb']}`;
}
for (const kind of payloads) if (!(kind in POOL_PER_SECOND)) throw new TypeError(`unknown payload ${kind}`);
if (!existsSync(new URL('../dist/server/start-receiver.js', import.meta.url))) {
  console.error('dist/ is missing: run `npm run build` first.');
  process.exit(2);
}

const log = (line) => console.error(`[receiver] ${line}`);
const notes = [];
const pgUrl = flags['pg-url'] ?? process.env.TEST_DATABASE_URL ?? DEFAULT_PG_URL;
let pgSettings;
if (variants.includes('hooksync-pg')) {
  pgSettings = flags['no-pg'] ? undefined : await probePostgres(pgUrl);
  if (pgSettings === undefined) {
    variants = variants.filter((name) => name !== 'hooksync-pg');
    notes.push(
      `Postgres rows skipped: ${flags['no-pg'] ? '--no-pg given' : `no Postgres answered at ${redact(pgUrl)}`}.`,
    );
  }
}

const key = createBenchKey();
const jwks = await startJwksServer([key.publicJwk]);
// The destination's consumer (issue 12), in this process: the server under test only sends to it.
const consumer = await startConsumer();
// The OTLP collector of hooksync-otel (issue 40), in this process: it takes every export and answers 200.
const collector = variants.some((name) => VARIANTS[name].otel) ? await startCollector() : undefined;
// The HubSpot stand-in (issue 18), in a child of its own, only when a variant sends to it.
const standIn = variants.some((name) => VARIANTS[name].hubspot)
  ? await startStandInChild({ tenSecondly: 100 })
  : undefined;
const load = forkChild(LOAD_SCRIPT);
const workDir = await mkdtemp(join(tmpdir(), 'hooksync-bench-receiver-'));
const results = {};
const payloadInfo = {};
try {
  for (const kind of payloads) {
    results[kind] = Object.fromEntries(variants.map((name) => [name, []]));
    const timing = TIMINGS[kind];
    const poolSize = Math.ceil((POOL_PER_SECOND[kind] * (timing.warmupMs + timing.windowMs)) / 1000);
    for (let round = 0; round < rounds; round += 1) {
      const prepared = await load.call('prepare', {
        kind,
        count: poolSize,
        key,
        iatSeconds: Math.floor(Date.now() / 1000),
      });
      payloadInfo[kind] = { ...prepared, poolSize };
      log(
        `${kind} round ${round + 1}/${rounds}: ${poolSize} deliveries signed in ${formatInteger(prepared.prepareMs)} ms`,
      );
      // Alternate: forward on even rounds, backward on odd ones, so that no server always goes first.
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const name of order) {
        const result = await runOne(name, timing);
        results[kind][name].push(result);
        log(
          `  ${name.padEnd(12)} ${formatInteger(result.requestsPerSecond).padStart(7)} req/s  p50 ${formatMs(result.p50Ms)} ms  ` +
            `p99 ${formatMs(result.p99Ms)} ms  cpu ${formatMs(result.cpuMsPerRequest)} ms/req` +
            (result.workerCpuMsPerRequest
              ? ` (main ${formatMs(result.mainCpuMsPerRequest)}, workers ${formatMs(result.workerCpuMsPerRequest)})`
              : '') +
            (result.check
              ? `  2xx ${result.check.acked}, stored ${result.check.stored}, 2xx not stored ${result.check.missing}` +
                (result.check.unanswered ? `, unanswered ${result.check.unanswered}` : '')
              : '') +
            (result.onward !== undefined ? `  handed on ${formatInteger(result.onward)}` : '') +
            `  peak MiB ${JSON.stringify(result.memoryPeaksMb)}` +
            (result.non2xx > 0 ? `  non-2xx ${JSON.stringify(result.byStatus)}` : '') +
            (result.internals
              ? `  batch ${result.internals.meanBatch.toFixed(1)}  queue ${result.internals.backlogStart}→${result.internals.backlogEnd}` +
                ` (rows written ${formatInteger(result.internals.withRowsPerSecond)} req/s, settled ${formatInteger(result.internals.settleMs)} ms after)`
              : ''),
        );
      }
    }
  }
} finally {
  await load.stop();
  await jwks.close();
  await consumer.close();
  await collector?.close();
  await standIn?.stop();
  await rm(workDir, { recursive: true, force: true });
}
report();

/** An OTLP/HTTP collector stand-in: reads each export whole and answers 200 with an empty JSON object. */
async function startCollector() {
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** A webhook consumer answering 204 to every POST, on 127.0.0.1. */
async function startConsumer() {
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** One server, one round: start it fresh, warm it up, time it, check what it stored, stop it. */
async function runOne(name, timing) {
  const variant = VARIANTS[name];
  const database = await createDatabase(variant.stores);
  const profile = flags['cpu-prof'] && variant.base === 'hooksync';
  const threadsFile = join(workDir, `${randomBytes(6).toString('hex')}.threads`);
  const server = forkChild(SERVER_SCRIPT, [], {
    execArgv: [
      '--import',
      THREAD_IDS_SCRIPT.href,
      ...(profile ? ['--cpu-prof', '--cpu-prof-dir', flags['cpu-prof']] : []),
      ...(flags['node-flags'] ? flags['node-flags'].split(/\s+/) : []),
    ],
    env: { ...process.env, HOOKSYNC_BENCH_THREADS_FILE: threadsFile },
  });
  try {
    const { url, pid } = await server.call('start', {
      variant: variant.base,
      ...(name.startsWith('hooksync-base') ? { dist: baseDist } : {}),
      databaseUrl: database.url,
      jwksUrl: jwks.url,
      publicJwk: key.publicJwk,
      ...(variant.destination ? { destinationUrl: consumer.url } : {}),
      ...(variant.hubspot ? { hubspot: { url: standIn.url, token: standIn.token } } : {}),
      ...(variant.ceiling ? { env: { HOOKSYNC_MEMORY_MB: flags['memory-mb'] } } : {}),
      ...(variant.otel ? { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } } : {}),
    });
    // The server's CPU is read over the window the load generator announces.
    let marked;
    let stats;
    load.on('window-start', () => {
      marked = server.call('mark');
    });
    load.on('window-end', () => {
      stats = (marked ?? Promise.resolve()).then(() => server.call('stats'));
    });
    let timed;
    try {
      timed = await load.call('load', {
        url,
        warmupMs: timing.warmupMs,
        windowMs: timing.windowMs,
        connections,
        sender: flags.sender,
      });
    } finally {
      load.off('window-start');
      load.off('window-end');
    }
    stats = await (stats ?? server.call('stats'));
    if (profile) {
      // The timed window and its answers, for bench/profile-summary.mjs (profiles are named by pid).
      writeFileSync(
        join(flags['cpu-prof'], `${pid}.window.json`),
        JSON.stringify({ variant: name, windowUs: stats.windowUs, completed: timed.completed }),
      );
    }
    // hooksync: how long until every job acknowledged so far also has its normalized rows.
    const settled = variant.base === 'hooksync' ? await server.call('settle') : undefined;
    let check;
    if (variant.stores) {
      // While the server still runs: an acknowledged delivery must already be committed.
      const stored = await database.storedJobIds();
      check = {
        acked: timed.acked.length,
        stored: stored.size,
        missing: timed.acked.filter((id) => !stored.has(id)).length,
        unanswered: timed.unanswered,
      };
    }
    return {
      requestsPerSecond: timed.requestsPerSecond,
      acceptedPerSecond: timed.elapsedMs > 0 ? timed.ok / (timed.elapsedMs / 1000) : Number.NaN,
      p50Ms: timed.p50Ms,
      p99Ms: timed.p99Ms,
      completed: timed.completed,
      non2xx: Object.entries(timed.byStatus)
        .filter(([code]) => Number(code) < 200 || Number(code) >= 300)
        .reduce((total, [, n]) => total + n, 0),
      byStatus: timed.byStatus,
      errors: timed.errors,
      windowMs: timed.elapsedMs,
      poolExhausted: timed.poolExhausted,
      cpuMsPerRequest: stats.cpuMs / Math.max(1, timed.completed),
      mainCpuMsPerRequest:
        stats.mainCpuMs === undefined ? undefined : stats.mainCpuMs / Math.max(1, timed.completed),
      workerCpuMsPerRequest:
        stats.workerCpuMs === undefined ? undefined : stats.workerCpuMs / Math.max(1, timed.completed),
      maxRssMb: stats.maxRssMb,
      memoryPeaksMb: stats.memoryPeaksMb,
      onward: variant.destination || variant.hubspot ? stats.onward : undefined,
      internals: stats.outcomes
        ? {
            verifyMs: stats.verifyMsAverage,
            commitMs: stats.commitMsAverage,
            outcomes: stats.outcomes,
            meanBatch: stats.committedItems / Math.max(1, stats.transactions),
            backlogStart: stats.backlogAtMark ?? 0,
            backlogEnd: stats.backlog,
            settleMs: settled?.settleMs,
            // Acknowledged in the window minus what the normalization queue grew by: jobs whose rows
            // were written too, per second.
            withRowsPerSecond:
              (timed.completed - (stats.backlog - (stats.backlogAtMark ?? 0))) / (timed.elapsedMs / 1000),
          }
        : undefined,
      check,
    };
  } finally {
    await server.stop();
    await database.drop();
  }
}

/** A fresh database for one server: a SQLite file in the work dir, or a new Postgres database. */
async function createDatabase(kind) {
  const id = randomBytes(6).toString('hex');
  if (kind === 'postgres') {
    const { default: pg } = await import('pg');
    const name = `hs_bench_${id}`;
    await withPg(pgUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async storedJobIds() {
        const client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
        try {
          const { rows } = await client.query('SELECT job_id FROM jobs');
          return new Set(rows.map((row) => row.job_id));
        } finally {
          await client.end();
        }
      },
      drop: () => withPg(pgUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
    };
  }
  const file = join(workDir, `${id}.db`);
  return {
    url: file,
    async storedJobIds() {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        return new Set(db.prepare('SELECT job_id FROM jobs').pluck().all());
      } finally {
        db.close();
      }
    },
    drop: async () => {
      for (const suffix of ['', '-wal', '-shm']) await rm(`${file}${suffix}`, { force: true });
    },
  };
}

async function withPg(url, work) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The server's durability settings, or undefined when it does not answer. */
async function probePostgres(url) {
  try {
    return await withPg(url, async (client) => {
      const setting = async (name) => (await client.query(`SHOW ${name}`)).rows[0][name];
      return {
        version: (await setting('server_version')).split(' ')[0],
        fsync: await setting('fsync'),
        synchronousCommit: await setting('synchronous_commit'),
      };
    });
  } catch {
    return undefined;
  }
}

function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the given URL';
  }
}

function report() {
  const out = [];
  const command = `node bench/receiver.mjs${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
  out.push(`### Receiver: POST /webhooks, ${connections} connections`, '');
  out.push(
    `Command: \`${command}\` — ${rounds} rounds; per server and round: fresh process and database, ` +
      'a continuous load whose first seconds are warm-up and whose next seconds are the timed window (per payload ' +
      'below). Servers alternate within each round ' +
      '(forward, then reversed). Every request is a distinct delivery (own job_id, jti, body, signature), ' +
      'signed before the timed part with iat = now.',
    '',
  );
  out.push(...ownMachineLines());
  out.push(
    'Durability: SQLite for hooksync and the naive baseline alike is WAL with synchronous=FULL (every ' +
      'acknowledged commit fsynced). ' +
      (pgSettings
        ? `Postgres ${pgSettings.version}: fsync=${pgSettings.fsync}, synchronous_commit=${pgSettings.synchronousCommit}` +
          '; the naive baseline stays on SQLite.'
        : ''),
    '',
  );
  for (const kind of payloads) {
    const info = payloadInfo[kind];
    out.push(
      `#### ${info.label} (${formatInteger(info.bodyBytes)} bytes per body; ${formatInteger(info.poolSize)} ` +
        `deliveries per round; ${TIMINGS[kind].warmupMs / 1000} s warm-up, ${TIMINGS[kind].windowMs / 1000} s window)`,
      '',
    );
    out.push(
      '| server | req/s, median (min–max) | 2xx/s (accepted) | p50 ms | p99 ms | server CPU ms/req | of which main thread / worker threads | peak RSS MB | non-2xx | 2xx answered = jobs stored? |',
    );
    out.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const name of variants) {
      const runs = results[kind][name];
      const exhausted = runs.filter((r) => r.poolExhausted).length;
      const check = runs.every((r) => r.check)
        ? `${runs.every(checkPassed) ? 'yes' : '**NO**'}: ${formatInteger(sum(runs, (r) => r.check.acked))} = ` +
          `${formatInteger(sum(runs, (r) => r.check.stored))}` +
          (sum(runs, (r) => r.check.missing) > 0
            ? `, ${sum(runs, (r) => r.check.missing)} acknowledged but not stored`
            : '') +
          (sum(runs, (r) => r.check.unanswered) > 0
            ? `, ${sum(runs, (r) => r.check.unanswered)} never answered`
            : '')
        : '—';
      out.push(
        `| ${VARIANTS[name].label}${exhausted ? ` [pool ran out in ${exhausted}/${runs.length} rounds]` : ''} | ` +
          `${formatSummary(summarize(runs.map((r) => r.requestsPerSecond)))} | ` +
          `${formatSummary(summarize(runs.map((r) => r.acceptedPerSecond)))} | ` +
          `${formatSummary(summarize(runs.map((r) => r.p50Ms)), formatMs)} | ` +
          `${formatSummary(summarize(runs.map((r) => r.p99Ms)), formatMs)} | ` +
          `${formatMs(median(runs.map((r) => r.cpuMsPerRequest)))} | ` +
          `${
            runs.some((r) => r.workerCpuMsPerRequest)
              ? `${formatMs(median(runs.map((r) => r.mainCpuMsPerRequest)))} / ${formatMs(median(runs.map((r) => r.workerCpuMsPerRequest)))}`
              : '—'
          } | ` +
          `${formatInteger(Math.max(...runs.map((r) => r.maxRssMb)))} | ` +
          `${formatInteger(sum(runs, (r) => r.non2xx + r.errors))}${nonOkDetail(runs)} | ${check} |`,
      );
    }
    out.push('');
    out.push(...ratioLines(kind), '');
    out.push(...ceilingLines(kind), '');
    out.push(...internalsLines(kind), '');
  }
  out.push(
    'Notes: req/s counts responses completed inside the timed window; p50/p99 are over those responses ' +
      `(send → response, at ${connections} connections). Server CPU ms/req is the server process’s ` +
      'user+system CPU over the window (marked over IPC, so approximate by one event-loop turn) divided by ' +
      'the responses in it: the figure least disturbed by a busy machine. On a 2-core machine the load generator (autocannon, one ' +
      'process) competes with the server for the CPU, which weighs most on the fastest servers (the ceiling ' +
      'is the load generator’s as much as node:http’s). "2xx answered = jobs stored?": after each round ' +
      'the load drains (deliveries in flight are answered, none new is sent), and while the server still ' +
      'runs its jobs table must hold exactly the job_ids it answered 2xx (warm-up included), summed over ' +
      'the rounds: acknowledged means committed, and nothing is stored twice. hooksync /metrics times are wall-clock inside the process, so they include waiting for the ' +
      'event loop under load. hooksync writes the normalized rows of an envelope over 16 KiB just after ' +
      'acknowledging it: "rows written, req/s" counts only the jobs acknowledged in the window whose rows ' +
      'were written too (acknowledged minus what the normalization queue grew by), and "all rows written, ' +
      'ms after the load" is how long the queue took to empty once the load had stopped.',
  );
  for (const note of notes) out.push('', note);
  console.log(out.join('\n'));
  const failedCheck = payloads.some((kind) =>
    variants.some((name) => results[kind][name].some((r) => r.check && !checkPassed(r))),
  );
  if (failedCheck) process.exitCode = 1;
}

/** hooksync / baseline: ratio of medians, and the paired per-round ratios (min–max). */
function ratioLines(kind) {
  const lines = [
    '| ratio | req/s: median of medians | req/s: per round, min–max | server CPU per request (lower is better) | target (req/s) |',
    '|---|---:|---:|---:|---|',
  ];
  const hooksyncs = ['hooksync', 'hooksync-pg'].filter((name) => variants.includes(name));
  const cpuOf = (name) => median(results[kind][name].map((r) => r.cpuMsPerRequest));
  const line = (label, hRuns, base, ownTarget, cpuRatio = '—') => {
    const bRuns = results[kind][base].map((r) => r.requestsPerSecond);
    const ratio = median(hRuns) / median(bRuns);
    const paired = hRuns.map((value, i) => value / bRuns[i]);
    const target = ownTarget ?? TARGETS[kind].find(([name]) => name === base)?.[1];
    const verdict = target === undefined ? '—' : `≥ ${target}×: ${ratio >= target ? 'met' : '**NOT met**'}`;
    lines.push(
      `| ${label} / ${base === 'hooksync-base' ? VARIANTS[base].label : base} | ${formatRatio(ratio)} | ${formatRatio(Math.min(...paired))}–${formatRatio(Math.max(...paired))} | ${cpuRatio} | ${verdict} |`,
    );
  };
  for (const h of hooksyncs) {
    for (const base of ['hooksync-base', 'naive', 'minimal', 'express', 'verify', 'bare']) {
      if (!variants.includes(base)) continue;
      line(
        VARIANTS[h].label,
        results[kind][h].map((r) => r.requestsPerSecond),
        base,
        // Issue 31: the reference build's reveals, at least as many per second.
        base === 'hooksync-base' && kind === 'reveal' && h === 'hooksync' ? 1.0 : undefined,
        formatRatio(cpuOf(h) / cpuOf(base)),
      );
    }
    if (variants.includes('naive') && results[kind][h].some((r) => r.internals?.backlogEnd > 0)) {
      // Counting only jobs whose normalized rows were written in the window as well.
      line(
        `${VARIANTS[h].label}, rows written too`,
        results[kind][h].map((r) => r.internals.withRowsPerSecond),
        'naive',
      );
    }
  }
  // Onward delivery must not slow receiving: with a destination vs without (issue 12; issue 18's ≥ 0.9×).
  // OpenTelemetry's cost (issue 40), against the build before it (--base-dist): off ≥ 0.98×, on ≥ 0.85×.
  for (const [name, target, against] of [
    ['hooksync-dest', undefined, 'hooksync'],
    ['hooksync-hubspot', 0.9, 'hooksync'],
    ['hooksync-base-dest', undefined, 'hooksync-base'],
    ['hooksync', 0.98, 'hooksync-base'],
    ['hooksync-otel', 0.85, 'hooksync-base'],
    ['hooksync-otel', undefined, 'hooksync'],
  ]) {
    if (!variants.includes(name) || !variants.includes(against)) continue;
    line(
      `${VARIANTS[name].label}${name === 'hooksync' ? ' (OTel off)' : ''}`,
      results[kind][name].map((r) => r.requestsPerSecond),
      against,
      target,
    );
  }
  return lines;
}

/** What hooksync's own /metrics said: mean verify time and mean wait for the commit, and the outcomes. */
function internalsLines(kind) {
  const names = ['hooksync-base', 'hooksync', 'hooksync-pg'].filter((name) => variants.includes(name));
  if (names.length === 0) return [];
  const lines = [
    '| hooksync (its /metrics from start to the end of the window) | verify ms, mean | wait for commit ms, mean | jobs per transaction | normalization queue, window start → end | rows written, req/s | all rows written, ms after the load | outcomes over all rounds |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const name of names) {
    const runs = results[kind][name].filter((r) => r.internals);
    if (runs.length === 0) continue;
    const outcomes = {};
    for (const run of runs) {
      for (const [outcome, n] of Object.entries(run.internals.outcomes))
        outcomes[outcome] = (outcomes[outcome] ?? 0) + n;
    }
    lines.push(
      `| ${VARIANTS[name].label} | ${formatSummary(summarize(runs.map((r) => r.internals.verifyMs)), formatMs)} | ` +
        `${formatSummary(summarize(runs.map((r) => r.internals.commitMs)), formatMs)} | ` +
        `${formatMs(median(runs.map((r) => r.internals.meanBatch)))} | ` +
        `${formatInteger(median(runs.map((r) => r.internals.backlogStart)))} → ${formatInteger(median(runs.map((r) => r.internals.backlogEnd)))} | ` +
        `${formatSummary(summarize(runs.map((r) => r.internals.withRowsPerSecond)))} | ` +
        `${formatSummary(summarize(runs.map((r) => r.internals.settleMs)))} | ` +
        `${Object.entries(outcomes)
          .map(([outcome, n]) => `${outcome} ${formatInteger(n)}`)
          .join(', ')} |`,
    );
  }
  return lines;
}

/** The statuses other than 2xx, summed over the rounds (e.g. " (429: 310, errors: 2)"). */
function nonOkDetail(runs) {
  const counts = {};
  for (const run of runs) {
    for (const [code, n] of Object.entries(run.byStatus)) {
      if (Number(code) < 200 || Number(code) >= 300) counts[code] = (counts[code] ?? 0) + n;
    }
    if (run.errors > 0) counts.errors = (counts.errors ?? 0) + run.errors;
  }
  const parts = Object.entries(counts).map(([code, n]) => `${code}: ${formatInteger(n)}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/**
 * Issue 29's figures for the run under a memory ceiling: its peak RSS against the ceiling, what it answered
 * besides 2xx (429 or 500 only), its accepted (2xx) per second against the unconstrained run's, and the
 * unconstrained run's peak RSS against the naive handler's.
 */
function ceilingLines(kind) {
  const lines = [];
  const peak = (name) => Math.max(...results[kind][name].map((r) => r.maxRssMb));
  const accepted = (name) => median(results[kind][name].map((r) => r.acceptedPerSecond));
  if (variants.includes('hooksync') && variants.includes('naive')) {
    const ratio = peak('hooksync') / peak('naive');
    lines.push(
      `Peak RSS, hooksync / naive (same run): ${formatInteger(peak('hooksync'))} / ${formatInteger(peak('naive'))} MB = ${formatRatio(ratio)} (issue 29: ≤ 2.0×: ${ratio <= 2 ? 'met' : '**NOT met**'}).`,
    );
  }
  for (const [constrained, free] of [
    ['hooksync-ceiling', 'hooksync'],
    ['hooksync-base-ceiling', 'hooksync-base'],
  ]) {
    if (!variants.includes(constrained)) continue;
    const runs = results[kind][constrained];
    const others = new Set(
      runs.flatMap((r) =>
        Object.keys(r.byStatus).filter((code) => Number(code) < 200 || Number(code) >= 300),
      ),
    );
    const onlyRetryable = [...others].every((code) => code === '429' || code === '500');
    // Peak RSS is ru_maxrss / 1024: MiB, the ceiling's unit.
    const peakMib = Math.max(...runs.map((r) => r.maxRssMb));
    const who = constrained === 'hooksync-ceiling' ? '' : ' (reference build)';
    lines.push(
      `Under HOOKSYNC_MEMORY_MB=${flags['memory-mb']}${who}: peak RSS ${formatInteger(peakMib)} MiB (≤ ${flags['memory-mb']}: ${peakMib <= Number(flags['memory-mb']) ? 'met' : '**NOT met**'}); ` +
        `answers other than 2xx: ${others.size === 0 ? 'none' : [...others].join(', ')} (429/500 only: ${onlyRetryable ? 'yes' : '**NO**'}).`,
    );
    if (variants.includes(free)) {
      const ratio = accepted(constrained) / accepted(free);
      lines.push(
        `Accepted (2xx) per second under the ceiling / unconstrained${who}: ${formatInteger(accepted(constrained))} / ${formatInteger(accepted(free))} = ${formatRatio(ratio)} (≥ 0.6×: ${ratio >= 0.6 ? 'met' : '**NOT met**'}).`,
      );
    }
  }
  if (variants.includes('hooksync-base') && variants.includes('naive')) {
    const ratio = peak('hooksync-base') / peak('naive');
    lines.push(
      `Peak RSS, reference build / naive (same run): ${formatInteger(peak('hooksync-base'))} / ${formatInteger(peak('naive'))} MB = ${formatRatio(ratio)}.`,
    );
  }
  return lines;
}

/** Every 2xx job_id stored, and no more rows than 2xx answers (unless some delivery was never answered). */
function checkPassed(run) {
  const { acked, stored, missing, unanswered } = run.check;
  return missing === 0 && (unanswered > 0 ? stored <= acked + unanswered : stored === acked);
}

function sum(items, pick) {
  return items.reduce((total, item) => total + pick(item), 0);
}

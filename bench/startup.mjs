#!/usr/bin/env node
/**
 * Start-up benchmark: `node dist/cli/main.js serve` from launch until GET /healthz answers 200 (on a new
 * SQLite file, which it migrates, and on an existing one), and `node dist/cli/main.js --help` until it
 * exits; in the same run and alternating with their floors, `node -e 0` and a bare node:http server
 * answering its first request. Medians over 10 runs (min–max), in ms.
 *
 *   npm run build && node bench/startup.mjs [--runs 10] [--quick: 5 runs] [--base-dist DIR]
 *
 * With --base-dist DIR (default $HOOKSYNC_BENCH_REFERENCE_DIST) the serve rows run for that build too, in
 * the same rounds.
 *
 * /healthz is polled every 5 ms from launch on a port picked beforehand (127.0.0.1 only), as a
 * readiness probe would; the floor row measures the probe's own resolution and Node's start.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { createBenchKey } from './lib/signing-key.mjs';
import { formatMs, formatSummary, summarize } from './lib/stats.mjs';

const MAIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const POLL_INTERVAL_MS = 5;
const READY_TIMEOUT_MS = 20_000;
const BARE_SERVER = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')`;

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'base-dist': { type: 'string' },
  },
});
const baseDist = flags['base-dist'] ?? (process.env.HOOKSYNC_BENCH_REFERENCE_DIST || undefined);
const BASE_MAIN = baseDist === undefined ? undefined : join(baseDist, 'cli/main.js');
const runs = Number(flags.runs ?? (flags.quick ? 5 : 10));
if (!existsSync(MAIN)) {
  console.error('dist/ is missing: run `npm run build` first.');
  process.exit(2);
}

const jwks = await startJwksServer([createBenchKey().publicJwk]);
const workDir = await mkdtemp(join(tmpdir(), 'hooksync-bench-startup-'));
const existingDb = join(workDir, 'existing.db');

/** What is timed, in table order; `floor` names the row it is compared with. */
const CASES = [
  { name: 'node -e 0 (Node start-up, floor of --help)', run: () => timeExit(['-e', '0']) },
  { name: 'hooksync --help', floor: 0, run: () => timeExit([MAIN, '--help']) },
  {
    name: 'bare node:http server, launch → first answer (floor of serve)',
    run: () => timeServe(['-e', BARE_SERVER], {}, '/'),
  },
  {
    name: 'hooksync serve, new SQLite file (migrates) → /healthz 200',
    floor: 2,
    run: (i) => timeServe([MAIN, 'serve'], serveEnv(join(workDir, `new-${i}.db`))),
  },
  {
    name: 'hooksync serve, existing SQLite file → /healthz 200',
    floor: 2,
    run: () => timeServe([MAIN, 'serve'], serveEnv(existingDb)),
  },
  ...(BASE_MAIN === undefined
    ? []
    : [
        {
          name: `reference build ${baseDist}: serve, new SQLite file (migrates) → /healthz 200`,
          floor: 2,
          run: (i) => timeServe([BASE_MAIN, 'serve'], serveEnv(join(workDir, `base-new-${i}.db`))),
        },
        {
          name: `reference build ${baseDist}: serve, existing SQLite file → /healthz 200`,
          floor: 2,
          run: () => timeServe([BASE_MAIN, 'serve'], serveEnv(join(workDir, 'base-existing.db'))),
        },
      ]),
];
const results = CASES.map(() => ({ readyMs: [], stopMs: [] }));

try {
  // Migrate the "existing" database once, untimed.
  await timeServe([MAIN, 'serve'], serveEnv(existingDb));
  if (BASE_MAIN !== undefined)
    await timeServe([BASE_MAIN, 'serve'], serveEnv(join(workDir, 'base-existing.db')));
  for (let i = 0; i < runs; i += 1) {
    const order = i % 2 === 0 ? CASES.map((_, k) => k) : CASES.map((_, k) => CASES.length - 1 - k);
    for (const k of order) {
      const { readyMs, stopMs } = await CASES[k].run(i);
      results[k].readyMs.push(readyMs);
      if (stopMs !== undefined) results[k].stopMs.push(stopMs);
    }
    console.error(`[startup] run ${i + 1}/${runs} done`);
  }
} finally {
  await jwks.close();
  await rm(workDir, { recursive: true, force: true });
}
report();

function serveEnv(databaseUrl) {
  return {
    HOOKSYNC_DATABASE_URL: databaseUrl,
    HOOKSYNC_JWKS_URL: jwks.url,
    HOOKSYNC_HOST: '127.0.0.1',
    HOOKSYNC_LOG_LEVEL: 'warn',
  };
}

/** Launch → exit, for a command that ends by itself. */
function timeExit(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited with ${code}`));
      else resolve({ readyMs: performance.now() - started });
    });
  });
}

/** Launch → first 200 on `path`, then SIGTERM → exit (the graceful stop, timed too). */
async function timeServe(args, env, path = '/healthz') {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env, PORT: String(port), HOOKSYNC_PORT: String(port) },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let exitedEarly = false;
  exited.then(() => {
    exitedEarly = true;
  });
  try {
    while (!(await answers200(port, path))) {
      if (exitedEarly) throw new Error(`${args.join(' ')} exited before answering:\n${stderr}`);
      if (performance.now() - started > READY_TIMEOUT_MS) throw new Error(`${args.join(' ')} never answered`);
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
    const readyMs = performance.now() - started;
    const stopping = performance.now();
    child.kill('SIGTERM');
    await exited;
    return { readyMs, stopMs: performance.now() - stopping };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function answers200(port, path) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('error', () => resolve(false));
    req.end();
  });
}

/** A port free right now on 127.0.0.1 (released before the server under test binds it). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function report() {
  const args = process.argv.slice(2).join(' ');
  const out = [`### Start-up`, ''];
  out.push(
    `Command: \`node bench/startup.mjs${args ? ` ${args}` : ''}\` — ${runs} runs of each, alternating ` +
      `(forward, then reversed); /healthz polled every ${POLL_INTERVAL_MS} ms from launch.`,
    '',
  );
  out.push(...ownMachineLines());
  out.push('| what | ms, median (min–max) | minus its floor, median | SIGTERM → exit ms, median |');
  out.push('|---|---:|---:|---:|');
  for (const [k, testCase] of CASES.entries()) {
    const ready = summarize(results[k].readyMs);
    const floor = testCase.floor === undefined ? undefined : summarize(results[testCase.floor].readyMs);
    const stop = results[k].stopMs.length > 0 ? formatMs(summarize(results[k].stopMs).median) : '—';
    out.push(
      `| ${testCase.name} | ${formatSummary(ready, formatMs)} | ` +
        `${floor === undefined ? '—' : formatMs(ready.median - floor.median)} | ${stop} |`,
    );
  }
  out.push(
    '',
    'serve loads its whole module graph (express, kysely, better-sqlite3, jose, pino, prom-client, zod), opens ' +
      'and migrates the database, fetches the key set from a local server, then listens.',
  );
  console.log(out.join('\n'));
}

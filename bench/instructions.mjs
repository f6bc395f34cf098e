#!/usr/bin/env node
/**
 * Instructions per delivery of `hooksync serve`, this build against a reference build (issue 31): each
 * server runs under valgrind's callgrind (every thread: the request thread, the store worker, libuv's
 * pool), takes the same signed deliveries from a fixed number of connections, and the instructions
 * counted between a dump before the load and one after it are divided by the deliveries. Unlike req/s or
 * CPU time, the count hardly moves with what else the machine is doing, so two builds compare on a shared
 * machine. Slow (valgrind runs Node about 50x slower): a few hundred deliveries per server.
 *
 *   npm run build && node bench/instructions.mjs --reference ../ref/dist [--deliveries 300] [--payload reveal]
 *   (or HOOKSYNC_BENCH_REFERENCE_DIST=DIR); needs valgrind and callgrind_control on the PATH
 *   --keep DIR  keeps each build's callgrind file of the load (this-build.<payload>.callgrind,
 *               reference.<payload>.callgrind) for bench/instruction-stages.mjs, which splits it by stage
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { forkChild } from './lib/child-channel.mjs';
import { loadPayloadTemplate } from './lib/delivery-payloads.mjs';
import { createDeliveryPool } from './lib/delivery-pool.mjs';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { createBenchKey } from './lib/signing-key.mjs';
import { formatInteger, formatRatio } from './lib/stats.mjs';

const SERVER_SCRIPT = new URL('./receiver-server.mjs', import.meta.url);

const { values: flags } = parseArgs({
  options: {
    reference: { type: 'string' },
    deliveries: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '100' },
    connections: { type: 'string', default: '8' },
    payload: { type: 'string', default: 'reveal' },
    keep: { type: 'string' },
  },
});
const reference = flags.reference ?? (process.env.HOOKSYNC_BENCH_REFERENCE_DIST || undefined);
const deliveries = Number(flags.deliveries);
const warmup = Number(flags.warmup);
const connections = Number(flags.connections);
if (!existsSync(new URL('../dist/server/start-receiver.js', import.meta.url))) {
  console.error('dist/ is missing: run `npm run build` first.');
  process.exit(2);
}
const log = (line) => console.error(`[instructions] ${line}`);

const key = createBenchKey();
const jwks = await startJwksServer([key.publicJwk]);
const template = loadPayloadTemplate(flags.payload);
const workDir = await mkdtemp(join(tmpdir(), 'hooksync-bench-instructions-'));
const builds = [['this build', undefined], ...(reference ? [['reference', reference]] : [])];
const results = [];
try {
  for (const [label, dist] of builds) {
    const pool = createDeliveryPool({
      template,
      key,
      count: warmup + deliveries,
      iatSeconds: Math.floor(Date.now() / 1000),
    });
    log(`${label}: starting serve under callgrind …`);
    results.push({ label, dist, ...(await measure(dist, pool)) });
    const last = results.at(-1);
    log(`${label}: ${formatInteger(last.perDelivery)} instructions per delivery`);
  }
} finally {
  await jwks.close();
  await rm(workDir, { recursive: true, force: true });
}
report();

async function measure(dist, pool) {
  const id = randomBytes(4).toString('hex');
  const outPrefix = join(workDir, `cg-${id}`);
  const server = forkChild(SERVER_SCRIPT, [], {
    execPath: 'valgrind',
    execArgv: [
      '--tool=callgrind',
      // V8 writes the code it then runs: valgrind must see it change.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${outPrefix}.%p`,
      process.execPath,
    ],
  });
  try {
    const { url, pid } = await server.call('start', {
      variant: 'hooksync',
      ...(dist ? { dist } : {}),
      databaseUrl: join(workDir, `${id}.db`),
      jwksUrl: jwks.url,
      publicJwk: key.publicJwk,
    });
    await send(url, pool, 0, warmup);
    await dump(pid, url);
    const started = performance.now();
    const answered = await send(url, pool, warmup, warmup + deliveries);
    const seconds = (performance.now() - started) / 1000;
    await dump(pid, url);
    const files = readdirSync(workDir)
      .filter((name) => name.startsWith(`cg-${id}.${pid}.`))
      .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
    const loadFile = files.at(-1);
    const instructions = totalInstructions(join(workDir, loadFile));
    if (flags.keep !== undefined) {
      mkdirSync(flags.keep, { recursive: true });
      const name = `${dist ? 'reference' : 'this-build'}.${flags.payload}.callgrind`;
      copyFileSync(join(workDir, loadFile), join(flags.keep, name));
    }
    return { instructions, answered, perDelivery: instructions / answered, seconds };
  } finally {
    await server.stop();
  }
}

/** Sends deliveries [from, to) of the pool over `connections` connections; resolves with the 2xx count. */
async function send(url, pool, from, to) {
  let next = from;
  let ok = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < to) {
        const i = next++;
        const response = await fetch(`${url}/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-webhook-signature': pool.tokens[i] },
          body: pool.body(i),
        });
        await response.arrayBuffer();
        if (response.ok) ok += 1;
      }
    }),
  );
  return ok;
}

/**
 * Asks callgrind for a dump (which also zeroes its counters). Valgrind reads the request only while the
 * process runs code, so the server is poked with /healthz until callgrind_control returns.
 */
async function dump(pid, url) {
  const control = spawn('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
  let done = false;
  const exited = new Promise((resolve) => control.once('exit', resolve));
  void exited.then(() => {
    done = true;
  });
  while (!done) {
    await fetch(`${url}/healthz`).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await exited;
}

function totalInstructions(file) {
  const text = readFileSync(file, 'utf8');
  const match = /^(?:summary|totals):\s+(\d+)/m.exec(text);
  if (!match) throw new Error(`no instruction total in ${file}`);
  return Number(match[1]);
}

function report() {
  const out = [];
  out.push(`### Instructions per delivery (callgrind), ${template.label}`, '');
  out.push(
    `Command: \`node bench/instructions.mjs${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\`` +
      ` — per build: serve under valgrind --tool=callgrind (all its threads), ${warmup} deliveries of warm-up, ` +
      `then ${deliveries} over ${connections} connections between two dumps; ${formatInteger(template.bytes)} bytes per body.`,
    '',
  );
  out.push(...ownMachineLines());
  out.push('| build | instructions per delivery | 2xx | ratio to the reference |', '|---|---:|---:|---:|');
  const base = results.find((r) => r.label === 'reference');
  for (const r of results) {
    out.push(
      `| ${r.label}${r.dist ? ` (${r.dist})` : ''} | ${formatInteger(r.perDelivery)} | ${r.answered} | ` +
        `${base ? formatRatio(r.perDelivery / base.perDelivery) : '—'} |`,
    );
  }
  console.log(out.join('\n'));
}

#!/usr/bin/env node
/**
 * Issue 43's hostile CRM answers against the built `hooksync serve` under HOOKSYNC_MEMORY_MB (default 256):
 * per case a fresh process (a SQLite file, a key set served from here, one HubSpot destination whose
 * base_url is a hostile server written here), company reveals delivered at start and then every 2 s, its
 * /metrics scraped every second, for `--seconds`. Read from /proc/PID/status: the peak resident set (VmHWM,
 * the kernel's high-water mark, start included) and whether serve is still alive at the end; beside them the
 * hostile answers served, the /metrics size at the end and the database file's size.
 *
 * Cases (every request of the destination answered so):
 *   zeros      a 200 of 8 MiB: {"results":[0,0,…]} (under the CRM's own 8 MiB cap, over the plan's)
 *   policy429  a 429 whose policyName is 7 MiB and new each time
 *   huge       a 200 of 150 MB streamed in chunks, no Content-Length
 *
 *   npm run build && node bench/hostile-memory.mjs [--seconds 20] [--memory-mb 256] [--cases zeros,policy429,huge]
 *     [--dist DIR]   (another build's dist/, e.g. a reference build)
 *
 * Exits 1 when serve died or its peak passed the ceiling.
 */
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startJwksServer } from './lib/jwks-server.mjs';
import { ownMachineLines } from './lib/machine.mjs';
import { createRandom, realisticReveal } from './lib/realistic-payloads.mjs';
import { createBenchKey, createTokenSigner } from './lib/signing-key.mjs';
import { deliverSigned, spawnServe } from './lib/spawn-serve.mjs';

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    'memory-mb': { type: 'string', default: '256' },
    cases: { type: 'string', default: 'zeros,policy429,huge' },
    dist: { type: 'string' },
  },
});
const cli = flags.dist
  ? join(flags.dist, 'cli/main.js')
  : new URL('../dist/cli/main.js', import.meta.url).pathname;
const ceilingMb = Number(flags['memory-mb']);
const seconds = Number(flags.seconds);
const log = (line) => process.stderr.write(`${line}\n`);

const MIB = 1024 * 1024;
/** Just under 8 MiB: under the CRM client's own cap, over the plan's. */
const ZEROS = Buffer.from(`{"results":[${'0,'.repeat(4 * MIB - 8)}0]}`);
const HUGE_BYTES = 150 * 1000 * 1000;
const CHUNK = Buffer.alloc(MIB, 0x20);

/** The hostile server: every request answered as `mode` says. */
async function startHostile() {
  const state = { mode: 'zeros', answered: 0, hugeBytesWritten: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      state.answered += 1;
      if (state.mode === 'zeros') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': ZEROS.length });
        res.end(ZEROS);
      } else if (state.mode === 'policy429') {
        const body = Buffer.from(
          JSON.stringify({
            status: 'error',
            message: 'You have reached your ten_secondly_rolling limit.',
            errorType: 'RATE_LIMIT',
            correlationId: randomUUID(),
            policyName: `${randomUUID()}${'P'.repeat(7 * MIB)}`,
          }),
        );
        res.writeHead(429, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      } else {
        void streamHuge(res, state);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

async function streamHuge(res, state) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"results":[');
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  for (let sent = 0; sent < HUGE_BYTES && !gone; sent += CHUNK.length) {
    state.hugeBytesWritten += CHUNK.length;
    if (!res.write(CHUNK))
      await new Promise((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
  }
  if (!gone) res.end(']}');
}

/** Bytes of a SQLite file with its write-ahead log. */
async function sizeOf(file) {
  let bytes = 0;
  for (const part of [file, `${file}-wal`]) bytes += (await stat(part).catch(() => ({ size: 0 }))).size;
  return bytes;
}

async function procStatus(pid) {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

const key = createBenchKey();
const signer = createTokenSigner(key);
const jwks = await startJwksServer([key.publicJwk]);
const hostile = await startHostile();
const random = createRandom(43);

async function oneCase(mode) {
  hostile.state.mode = mode;
  hostile.state.answered = 0;
  hostile.state.hugeBytesWritten = 0;
  const serve = await spawnServe({
    cli,
    jwksUrl: jwks.url,
    destinations: {
      destinations: [
        {
          name: 'crm',
          type: 'hubspot',
          token: { env: 'HUBSPOT_TOKEN' },
          base_url: hostile.url,
          timeout: '10s',
          retry: { schedule: ['1s', '1s', '1s', '1s', '1s'] },
        },
      ],
    },
    env: {
      HOOKSYNC_MEMORY_MB: String(ceilingMb),
      HUBSPOT_TOKEN: 'pat-na1-bench',
      // The loopback CRM is plain http: allowed for this host only.
      HOOKSYNC_ALLOW_INSECURE_HTTP: '127.0.0.1',
    },
    prefix: 'hooksync-bench-hostile-',
  });
  try {
    const start = await procStatus(serve.pid);
    const deliver = () => {
      const jobId = randomUUID();
      return deliverSigned(serve.url, signer, jobId, realisticReveal(random, jobId));
    };
    let delivered = 0;
    let metricsBytes = 0;
    for (let i = 0; i < 3; i++) if ((await deliver()) === 200) delivered += 1;
    for (let second = 0; second < seconds && serve.exit() === undefined; second++) {
      await sleep(1000);
      if (serve.exit() !== undefined) break;
      try {
        metricsBytes = (await (await fetch(`${serve.url}/metrics`)).text()).length;
        if (second % 2 === 1 && (await deliver()) === 200) delivered += 1;
      } catch {
        // serve died between the check and the call: seen below.
      }
    }
    const alive = serve.exit() === undefined;
    const end = alive ? await procStatus(serve.pid) : undefined;
    return {
      mode,
      alive,
      exit: serve.exit(),
      startMb: start.hwmMb,
      peakMb: end?.hwmMb ?? Number.NaN,
      rssEndMb: end?.rssMb ?? Number.NaN,
      answered: hostile.state.answered,
      hugeMb: hostile.state.hugeBytesWritten / 1e6,
      delivered,
      metricsKb: metricsBytes / 1024,
      databaseKb: (await sizeOf(serve.databaseFile)) / 1024,
      logKb: serve.logBytes() / 1024,
    };
  } finally {
    await serve.stop();
  }
}

const results = [];
for (const mode of flags.cases.split(',')) {
  log(`case ${mode}: ${seconds} s under HOOKSYNC_MEMORY_MB=${ceilingMb}`);
  results.push(await oneCase(mode));
}
await hostile.close();
await jwks.close();

const lines = [
  ...(await ownMachineLines()),
  '',
  `\`node bench/hostile-memory.mjs --seconds ${seconds} --memory-mb ${ceilingMb}${flags.dist ? ` --dist ${flags.dist}` : ''}\``,
  '',
  '| case | serve alive | peak RSS MiB (VmHWM) | at start | RSS at end | hostile answers | deliveries 200 | /metrics KiB | database + WAL KiB | log KiB |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.mode}${r.mode === 'huge' ? ` (${r.hugeMb.toFixed(0)} MB written)` : ''} | ${r.alive ? 'yes' : `**no** (${r.exit})`} | ${r.peakMb.toFixed(1)} | ${r.startMb.toFixed(1)} | ${r.rssEndMb.toFixed(1)} | ${r.answered} | ${r.delivered} | ${r.metricsKb.toFixed(1)} | ${r.databaseKb.toFixed(0)} | ${r.logKb.toFixed(0)} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
process.exitCode = results.every((r) => r.alive && r.peakMb <= ceilingMb) ? 0 : 1;

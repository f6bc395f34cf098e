#!/usr/bin/env node
/**
 * One server under test for bench/receiver.mjs, in its own process (so that it never shares an event loop
 * with the load generator). Driven over IPC: `start` → { url }, `mark` (start of the timed part),
 * `stats` → CPU time and peak RSS since the mark, `stop`.
 *
 * Variants (all answer POST /webhooks):
 *   bare      node:http reading the body, answering 200: the ceiling
 *   express   express 5 with express.raw() answering 200: the framework's cost
 *   verify    node:http + SHA-256 body check + Ed25519 (node:crypto, synchronous), nothing parsed or
 *             stored: the ceiling of any receiver that verifies each delivery on this machine
 *   minimal   node:http + jose jwtVerify + SHA-256 + one better-sqlite3 transaction per delivery (body
 *             and jti), WAL, synchronous=FULL: the floor the issue names
 *   naive     express 5 + express.raw() + jose jwtVerify (createLocalJWKSet) + SHA-256 body check +
 *             JSON.parse + one better-sqlite3 transaction (body and jti), WAL, synchronous=FULL:
 *             the handler a user would write from the interface
 *   hooksync  startReceiver() from dist/, i.e. `hooksync serve` (SQLite file or Postgres URL), in serve's
 *             bounded thread when the build has one (as its executable runs it)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { serveChannel } from './lib/child-channel.mjs';

const OK_BODY = '{"ok":true}';
/** Same limit as hooksync's default, so that no variant refuses the 340 KB page. */
const BODY_LIMIT = '32mb';

let running;
let mark;
/** Linux id of the thread serving requests when it is not the main thread (serve's bounded thread). */
let requestThreadId;
/**
 * The largest of each process.memoryUsage() figure (main thread's heap, external, array buffers; the
 * process's RSS), sampled every 20 ms from the start: where the memory is at the peak (issue 29).
 */
const peaks = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
setInterval(() => {
  const usage = process.memoryUsage();
  for (const name of Object.keys(peaks)) peaks[name] = Math.max(peaks[name], usage[name]);
}, 20).unref();

serveChannel({
  async start(options) {
    running = await startVariant(options);
    return { url: running.url, pid: process.pid };
  },
  async mark() {
    mark = {
      cpu: process.cpuUsage(),
      threads: threadCpuMs(),
      // On the clock V8's CPU profiles use: profile-summary.mjs counts only the samples of the window.
      monotonicUs: Number(process.hrtime.bigint() / 1000n),
      wallMs: performance.now(),
      ...(running.stats ? await running.stats() : {}),
    };
  },
  async stats() {
    const cpu = process.cpuUsage(mark?.cpu);
    const { threadMemoryPeaksMb: threadPeaks = {}, ...serverStats } = running.stats
      ? await running.stats()
      : {};
    const threads = threadCpuMs();
    return {
      cpuMs: (cpu.user + cpu.system) / 1000,
      // CPU over the window by thread: the main thread, the worker threads (serve's store worker).
      ...(threads && mark?.threads
        ? {
            mainCpuMs: threads.main - mark.threads.main,
            workerCpuMs: threads.workers - mark.threads.workers,
          }
        : {}),
      wallMs: performance.now() - (mark?.wallMs ?? 0),
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      ...serverStats,
      // The process's RSS; the heap figures of the thread that serves requests (serve's bounded thread's
      // when it runs in one).
      memoryPeaksMb: {
        ...Object.fromEntries(
          Object.entries(peaks).map(([name, bytes]) => [name, Math.round(bytes / 2 ** 20)]),
        ),
        ...threadPeaks,
      },
      backlogAtMark: mark?.backlog,
      windowUs: [mark?.monotonicUs, Number(process.hrtime.bigint() / 1000n)],
    };
  },
  async settle() {
    const started = performance.now();
    await running.settle?.();
    return { settleMs: performance.now() - started };
  },
  async stop() {
    await running?.close();
  },
});

/**
 * CPU ms so far of the request thread (the main thread, plus serve's bounded thread when it runs in one)
 * and of the other worker threads that bench/lib/thread-ids.mjs recorded (from /proc, in clock ticks of
 * 10 ms); undefined where /proc is not there.
 */
function threadCpuMs() {
  const file = process.env.HOOKSYNC_BENCH_THREADS_FILE;
  const ticks = (tid) => {
    try {
      // Fields after the parenthesized name: state is the 3rd field, utime the 14th, stime the 15th.
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  };
  try {
    const workers = (
      file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
    ).filter((tid) => tid !== String(requestThreadId));
    return {
      main: (ticks(process.pid) + (requestThreadId === undefined ? 0 : ticks(requestThreadId))) * 10,
      workers: workers.reduce((total, tid) => total + ticks(tid), 0) * 10,
    };
  } catch {
    return undefined;
  }
}

async function startVariant(options) {
  switch (options.variant) {
    case 'bare':
      return startBare();
    case 'express':
      return startExpressNoop();
    case 'naive':
      return startNaive(options);
    case 'hooksync':
      return startHooksync(options);
    case 'verify':
      return startVerifyCeiling(options);
    case 'minimal':
      return startMinimal(options);
    default:
      throw new TypeError(`unknown variant ${options.variant}`);
  }
}

async function listen(server) {
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return `http://127.0.0.1:${server.address().port}`;
}

function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function startBare() {
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      Buffer.concat(chunks);
      response
        .writeHead(200, { 'content-type': 'application/json', 'content-length': OK_BODY.length })
        .end(OK_BODY);
    });
  });
  return { url: await listen(server), close: () => closeServer(server) };
}

async function startExpressNoop() {
  const { default: express } = await import('express');
  const app = express();
  app.post('/webhooks', express.raw({ type: 'application/json', limit: BODY_LIMIT }), (_req, res) => {
    res.status(200).json({ ok: true });
  });
  const server = createServer(app);
  return { url: await listen(server), close: () => closeServer(server) };
}

/** The two tables the SQLite baselines write, with hooksync's durability: WAL, every commit fsynced. */
async function openBaselineDatabase(databaseUrl) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(databaseUrl);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS jobs (job_id TEXT PRIMARY KEY, envelope TEXT NOT NULL, received_at TEXT NOT NULL);
           CREATE TABLE IF NOT EXISTS deliveries (jti TEXT PRIMARY KEY, job_id TEXT NOT NULL)`);
  return db;
}

async function startNaive({ databaseUrl, publicJwk }) {
  const { default: express } = await import('express');
  const { createLocalJWKSet, jwtVerify } = await import('jose');
  const db = await openBaselineDatabase(databaseUrl);
  const insertJti = db.prepare('INSERT INTO deliveries (jti, job_id) VALUES (?, ?)');
  const upsertJob = db.prepare(
    `INSERT INTO jobs (job_id, envelope, received_at) VALUES (?, ?, ?)
     ON CONFLICT (job_id) DO UPDATE SET envelope = excluded.envelope, received_at = excluded.received_at`,
  );
  const store = db.transaction((jti, jobId, text) => {
    insertJti.run(jti, jobId);
    upsertJob.run(jobId, text, new Date().toISOString());
  });
  const keys = createLocalJWKSet({ keys: [publicJwk] });

  const app = express();
  app.post('/webhooks', express.raw({ type: 'application/json', limit: BODY_LIMIT }), async (req, res) => {
    const token = req.get('x-webhook-signature');
    if (!token) {
      res.status(401).json({ error: 'missing signature' });
      return;
    }
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, { algorithms: ['EdDSA'], typ: 'JWT' }));
    } catch {
      res.status(401).json({ error: 'bad signature' });
      return;
    }
    if (createHash('sha256').update(req.body).digest('base64url') !== claims.body_hash) {
      res.status(401).json({ error: 'body hash mismatch' });
      return;
    }
    const text = req.body.toString('utf8');
    const envelope = JSON.parse(text);
    if (envelope?.input?.task?.job_id !== claims.job_id) {
      res.status(400).json({ error: 'job_id mismatch' });
      return;
    }
    try {
      store(claims.jti, claims.job_id, text);
    } catch (error) {
      if (error?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        res.status(200).json({ ok: true, replay: true });
        return;
      }
      throw error;
    }
    res.status(200).json({ ok: true });
  });
  const server = createServer(app);
  return {
    url: await listen(server),
    close: async () => {
      await closeServer(server);
      db.close();
    },
  };
}

/**
 * `hooksync serve` as the built CLI runs it: in a build with cli/bounded-thread.js, startReceiver() in a
 * worker thread under the V8 limits the executable gives serve's thread (bench/lib/hooksync-serve-thread.mjs),
 * this process's main thread then only relaying, as the executable's does; in an older build (a --base-dist
 * reference from before), in this process's main thread, as that build's executable ran it.
 */
async function startHooksync(options) {
  const dist = options.dist
    ? pathToFileURL(`${options.dist.replace(/\/+$/, '')}/`)
    : new URL('../dist/', import.meta.url);
  if (!existsSync(new URL('cli/bounded-thread.js', dist))) {
    const { startHooksyncHere } = await import('./lib/hooksync-serve.mjs');
    return startHooksyncHere(options);
  }
  const { boundedResourceLimits } = await import(new URL('cli/bounded-thread.js', dist).href);
  // The variables startHooksyncHere() gives serve's config, as the executable would read them.
  const worker = new Worker(new URL('./lib/hooksync-serve-thread.mjs', import.meta.url), {
    workerData: options,
    resourceLimits: boundedResourceLimits('serve', { ...options.env }),
  });
  let nextId = 1;
  const pending = new Map();
  let failure;
  const fail = (error) => {
    failure ??= error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the serve thread exited (${code})`)));
  worker.on('message', (message) => {
    const waiter = pending.get(message.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new Error(message.error));
  });
  const call = (type) =>
    failure
      ? Promise.reject(failure)
      : new Promise((resolve, reject) => {
          const id = nextId++;
          pending.set(id, { resolve, reject });
          worker.postMessage({ id, type });
        });
  const { url, tid } = await call('start');
  requestThreadId = tid;
  return {
    url,
    // The request thread's own heap peaks (this thread's are the relay's), beside hooksync's view.
    stats: () => call('stats'),
    settle: () => call('settle'),
    close: async () => {
      await call('close');
      await worker.terminate();
    },
  };
}

/** The body of a POST, as a Buffer. */
function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function answer(response, status) {
  response
    .writeHead(status, { 'content-type': 'application/json', 'content-length': OK_BODY.length })
    .end(OK_BODY);
}

async function startVerifyCeiling({ publicJwk }) {
  const { createPublicKey, verify } = await import('node:crypto');
  const key = createPublicKey({ key: publicJwk, format: 'jwk' });
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const token = request.headers['x-webhook-signature'];
    // The load's drain sends GET /healthz without a token.
    if (token === undefined) return answer(response, 200);
    const [header, payload, signature] = token.split('.');
    JSON.parse(Buffer.from(header, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const ok =
      verify(null, Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url')) &&
      createHash('sha256').update(body).digest('base64url') === claims.body_hash;
    answer(response, ok ? 200 : 401);
  });
  return { url: await listen(server), close: () => closeServer(server) };
}

async function startMinimal({ databaseUrl, publicJwk }) {
  const { createLocalJWKSet, jwtVerify } = await import('jose');
  const db = await openBaselineDatabase(databaseUrl);
  const insertJti = db.prepare('INSERT OR IGNORE INTO deliveries (jti, job_id) VALUES (?, ?)');
  const upsertJob = db.prepare(
    'INSERT INTO jobs (job_id, envelope, received_at) VALUES (?, ?, ?) ON CONFLICT (job_id) DO NOTHING',
  );
  const store = db.transaction((jti, jobId, text) => {
    if (insertJti.run(jti, jobId).changes === 1) upsertJob.run(jobId, text, new Date().toISOString());
  });
  const keys = createLocalJWKSet({ keys: [publicJwk] });
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const token = request.headers['x-webhook-signature'];
    if (token === undefined) return answer(response, request.method === 'GET' ? 200 : 401);
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, { algorithms: ['EdDSA'], typ: 'JWT' }));
    } catch {
      return answer(response, 401);
    }
    if (createHash('sha256').update(body).digest('base64url') !== claims.body_hash)
      return answer(response, 401);
    store(claims.jti, claims.job_id, body.toString('utf8'));
    answer(response, 200);
  });
  return {
    url: await listen(server),
    close: async () => {
      await closeServer(server);
      db.close();
    },
  };
}

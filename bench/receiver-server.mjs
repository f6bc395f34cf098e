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
 *   hooksync  startReceiver() from dist/, i.e. `hooksync serve` (SQLite file or Postgres URL)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { serveChannel } from './lib/child-channel.mjs';

const OK_BODY = '{"ok":true}';
/** Same limit as hooksync's default, so that no variant refuses the 340 KB page. */
const BODY_LIMIT = '32mb';

let running;
let mark;

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
      ...(running.stats ? await running.stats() : {}),
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
 * CPU ms so far of the main thread and of the worker threads that bench/lib/thread-ids.mjs recorded (from
 * /proc, in clock ticks of 10 ms); undefined where /proc is not there.
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
    const workers = file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    return {
      main: ticks(process.pid) * 10,
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

async function startHooksync({ databaseUrl, jwksUrl, dist: otherDist, destinationUrl, hubspot }) {
  const dist = otherDist
    ? pathToFileURL(`${otherDist.replace(/\/+$/, '')}/`)
    : new URL('../dist/', import.meta.url);
  const { loadConfig } = await import(new URL('config/load-config.js', dist).href);
  // A build from before issue 14 kept the composition root in receiver/.
  const root = existsSync(new URL('server/start-receiver.js', dist)) ? 'server' : 'receiver';
  const { startReceiver } = await import(new URL(`${root}/start-receiver.js`, dist).href);
  // The environment `hooksync serve` would read; port 0 picks a free one.
  const config = loadConfig({
    HOOKSYNC_DATABASE_URL: databaseUrl,
    HOOKSYNC_JWKS_URL: jwksUrl,
    HOOKSYNC_HOST: '127.0.0.1',
    HOOKSYNC_PORT: '0',
    HOOKSYNC_LOG_LEVEL: 'silent',
  });
  // Loaded only when asked for: a --base-dist build from before destinations has no such module.
  const destinations =
    hubspot !== undefined
      ? await (await import(new URL('destinations/load-destinations.js', dist).href)).parseDestinations(
          {
            destinations: [
              { name: 'bench', type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hubspot.url },
            ],
          },
          { HUBSPOT_TOKEN: hubspot.token },
          'bench',
        )
      : destinationUrl === undefined
        ? []
        : await (await import(new URL('destinations/load-destinations.js', dist).href)).parseDestinations(
            {
              destinations: [
                {
                  name: 'bench',
                  type: 'webhook',
                  url: destinationUrl,
                  secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
                },
              ],
            },
            {},
            'bench',
          );
  const receiver = await startReceiver({
    config,
    port: 0,
    ...(destinations.length === 0 ? {} : { destinations }),
  });
  const url = receiver.url;
  return {
    url,
    // hooksync's own view, from its /metrics (since start, warm-up included).
    async stats() {
      const text = await (await fetch(`${url}/metrics`)).text();
      const metric = (name) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? Number.NaN);
      const outcomes = {};
      for (const [, outcome, n] of text.matchAll(
        /^hooksync_deliveries_total\{outcome="([^"]*)"[^}]*\} (\S+)$/gm,
      )) {
        outcomes[outcome] = (outcomes[outcome] ?? 0) + Number(n);
      }
      const store = receiver.store.stats();
      return {
        transactions: store.transactions,
        committedItems: store.committedItems,
        // Acknowledged large envelopes whose rows are still to be written (the normalization queue).
        backlog: metric('hooksync_normalization_backlog'),
        verifyMsAverage:
          (1000 * metric('hooksync_verify_seconds_sum')) / metric('hooksync_verify_seconds_count'),
        commitMsAverage:
          (1000 * metric('hooksync_commit_seconds_sum')) / metric('hooksync_commit_seconds_count'),
        outcomes,
        // Events the destination's consumer acknowledged (issue 12).
        onward: Number(
          text.match(
            /^hooksync_destination_events_total\{destination="bench",outcome="delivered"\} (\S+)$/m,
          )?.[1] ?? 0,
        ),
      };
    },
    settle: () => receiver.store.settled(),
    close: () => receiver.close(),
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

/**
 * Issue 28 part 7, the first test: a hostile CRM against the real `hooksync serve` under a small heap. The
 * HubSpot destination's `base_url` is a server written here that answers the CRM's endpoints with (a) a
 * 150 MB body streamed in chunks, (b) a malformed 200 `{"results":5}`, (c) endless paging on search, and
 * passes everything else to the HubSpot stand-in. The process must stay alive, its peak RSS stay far under
 * the body, its events end on the lane's schedule (not a tight loop), and deliveries keep being acknowledged.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../src/storage/open-migrated-database.js';
import { envelopeText } from '../helpers/envelope-texts.js';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../helpers/hubspot/stand-in.js';
import { deliver } from '../helpers/receiver-harness.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import { type ServeProcess, spawnServe, useServeFixture } from '../helpers/spawn-serve.js';
import { signDelivery } from '../helpers/webhook-signer.js';
import { until } from '../integration/destinations/destinations-context.js';

type Mode = 'huge' | 'malformed' | 'paging';

const HUGE_BYTES = 150 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x20); // a MiB of spaces: the body never ends in valid JSON before 150 MB
const HEAP_MB = 96;
/** The lane's schedule in the destinations file: an event has 1 + 2 attempts. */
const SCHEDULE = ['1s', '1s'];
const ATTEMPTS = 1 + SCHEDULE.length;
/** HubSpot's search stops at 10,000 results, 200 a page. */
const MAX_SEARCH_PAGES = 10_000 / 200;

interface Hostile {
  url: string;
  mode: Mode;
  /** Requests to `/crm/` answered by the hostile side. */
  hostileRequests: number;
  /** Bytes of the huge bodies actually written (the reader stops at its cap). */
  hugeBytesWritten: number;
  /** Search requests without `after` (a new query) and with it (a next page). */
  searchFirstPages: number;
  searchNextPages: number;
  close(): Promise<void>;
}

const fixture = useServeFixture('hooksync-hostile-crm-');
let hs: HubSpotStandIn;
let hostile: Hostile;

beforeAll(async () => {
  hs = await startHubSpotStandIn({ searchPerSecond: 1000, tenSecondly: 100_000 });
  defineSetUpProperties(hs);
  hostile = await startHostile(hs.url);
});
afterAll(async () => {
  await hostile?.close();
  await hs?.close();
});

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes 150 MB in chunks, waiting for the socket to drain; stops when the client goes away. */
async function streamHuge(res: ServerResponse, state: Hostile): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length to refuse up front
  res.write('{"results":[');
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  for (let sent = 0; sent < HUGE_BYTES && !gone; sent += CHUNK.length) {
    state.hugeBytesWritten += CHUNK.length;
    if (!res.write(CHUNK))
      await new Promise<void>((resolve) => {
        const done = (): void => {
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

/** Passes a request to the stand-in unchanged. */
function forward(target: URL, req: IncomingMessage, body: Buffer, res: ServerResponse): void {
  const upstream = httpRequest(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host, 'content-length': String(body.length) },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  upstream.end(body);
}

async function startHostile(standInUrl: string): Promise<Hostile> {
  const target = new URL(standInUrl);
  const state: Hostile = {
    url: '',
    mode: 'huge',
    hostileRequests: 0,
    hugeBytesWritten: 0,
    searchFirstPages: 0,
    searchNextPages: 0,
    close: async () => {},
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = (req.url ?? '').split('?')[0]!;
      if (state.mode === 'paging') {
        if (!path.endsWith('/search')) return forward(target, req, body, res);
        state.hostileRequests += 1;
        const asked = JSON.parse(body.toString('utf8')) as { after?: string; limit?: number };
        if (asked.after === undefined) state.searchFirstPages += 1;
        else state.searchNextPages += 1;
        const page = Number(asked.after ?? '0');
        // A full page of records that match nothing asked for, and always a next page.
        const results = Array.from({ length: asked.limit ?? 200 }, (_, k) => ({
          id: String(9_000_000 + page * 1000 + k),
          properties: {},
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
          archived: false,
        }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ total: 1_000_000, results, paging: { next: { after: String(page + 1) } } }));
        return;
      }
      if (!path.startsWith('/crm/')) return forward(target, req, body, res);
      state.hostileRequests += 1;
      if (state.mode === 'huge') return streamHuge(res, state);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"results":5}');
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/**
 * Growth of the peak resident set allowed over the one at start: the cap is 8 MiB, the body 150 MB (17-43 MB
 * of growth seen on a loaded machine; reading the body whole would need 150 MB or die on the 96 MB heap).
 */
const MAX_RSS_GROWTH_MB = 96;

/** Peak resident set (VmHWM) of a process, in MB. */
function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM for ${pid}`);
  return Number(match[1]) / 1024;
}

interface Figures {
  /** Peak RSS once listening, before any delivery, and at the end, in MB. */
  startMb: number;
  peakMb: number;
}

let delivered = 0;
/** Delivers one signed job (a company reveal, its domain made unique) and returns the HTTP status. */
async function deliverOne(serve: ServeProcess): Promise<number> {
  delivered += 1;
  const base = envelopeText('company-reveal');
  const text = base.text.replaceAll('acme-robotics.com', `hostile-${delivered}.com`);
  const iat = Math.floor(Date.now() / 1000);
  const answer = await deliver(
    serve.url,
    text,
    await signDelivery(text, { key: fixture.key, iat, jobId: base.jobId }),
  );
  return answer.status;
}

/** Runs `serve` under the small heap against the hostile server in `mode`. */
async function withServe(
  mode: Mode,
  run: (serve: ServeProcess, events: () => Promise<Array<Record<string, unknown>>>) => Promise<void>,
): Promise<Figures> {
  hostile.mode = mode;
  hostile.hostileRequests = 0;
  hostile.hugeBytesWritten = 0;
  const file = join(fixture.dir, `destinations-${mode}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      destinations: [
        {
          name: 'crm',
          type: 'hubspot',
          token: { env: 'HUBSPOT_TOKEN' },
          base_url: hostile.url,
          // A search paged to HubSpot's 10,000 results is 50 calls at search's 4 a second (12.5 s, more on a
          // loaded machine): in paging mode the attempt must outlast it, or whether it is delivered is a race.
          timeout: mode === 'paging' ? '120s' : '10s',
          retry: { schedule: SCHEDULE },
        },
      ],
    }),
  );
  const env = {
    HOOKSYNC_DATABASE_URL: join(fixture.dir, `${mode}.db`),
    HOOKSYNC_JWKS_URL: fixture.jwks.url,
    HOOKSYNC_DESTINATIONS: file,
    HUBSPOT_TOKEN: hs.token,
    NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}`,
  };
  const serve = await spawnServe(env);
  const startMb = peakRssMb(serve.child.pid!);
  let exit: number | string | undefined;
  void serve.exited.then((code) => {
    exit = code;
  });
  const database = await openMigratedDatabase(env.HOOKSYNC_DATABASE_URL);
  const events = async () =>
    (await database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute()) as Array<
      Record<string, unknown>
    >;
  let peakMb = 0;
  try {
    await run(serve, events);
    expect(exit, `serve exited:\n${serve.stderr()}`).toBeUndefined();
    peakMb = peakRssMb(serve.child.pid!);
  } finally {
    await database.close();
    if (exit === undefined) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  }
  return { startMb, peakMb };
}

/**
 * Delivers one job, waits until the hostile side is called, delivers a second one (acknowledged while the
 * destination fights its CRM), and waits (up to `endMs`) until both events are `status`.
 */
async function twoEventsEnd(
  serve: ServeProcess,
  events: () => Promise<Array<Record<string, unknown>>>,
  status: 'failed' | 'delivered',
  waitMs = 90_000,
): Promise<void> {
  expect(await deliverOne(serve)).toBe(200);
  await until('the hostile CRM is called', () => hostile.hostileRequests > 0, 20_000);
  expect(await deliverOne(serve)).toBe(200);
  await until(
    `both events end ${status}`,
    async () => {
      const rows = await events();
      return rows.length === 2 && rows.every((row) => row.status === status);
    },
    waitMs,
  );
}

const recorded: Record<string, unknown> = {};
/** Adds one case's figures to test-artifacts/reliability/hostile-crm.json. */
function record(mode: Mode, figures: Figures, extra: Record<string, number>): void {
  recorded[mode] = {
    startRssMb: Math.round(figures.startMb),
    peakRssMb: Math.round(figures.peakMb),
    hostileRequests: hostile.hostileRequests,
    ...extra,
  };
  recordReliabilityFigures('hostile-crm', { heapMb: HEAP_MB, schedule: SCHEDULE, ...recorded });
}

describe('hooksync serve against a hostile CRM, under a 96 MB heap', () => {
  it('reads a 150 MB answer under its cap: alive, bounded, events failed on the schedule', async () => {
    const figures = await withServe('huge', async (serve, events) => {
      await twoEventsEnd(serve, events, 'failed');
      for (const row of await events()) {
        expect(row.attempts).toBe(ATTEMPTS);
        expect(String(row.last_error)).toMatch(/cap|larger|bytes|MiB/i);
      }
    });
    record('huge', figures, { mibWritten: Math.round(hostile.hugeBytesWritten / 1024 / 1024) });
    expect(figures.peakMb - figures.startMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    // The reader stops at its cap: far less than the 150 MB of each answer crosses the socket.
    expect(hostile.hugeBytesWritten).toBeLessThan(hostile.hostileRequests * 40 * 1024 * 1024);
    // One call per lane attempt (an answer over the cap is not retried within the call), batches aside.
    expect(hostile.hostileRequests).toBeGreaterThanOrEqual(ATTEMPTS);
    expect(hostile.hostileRequests).toBeLessThanOrEqual(2 * ATTEMPTS);
  }, 120_000);

  it('counts a malformed 200 as a failed attempt: events failed on the schedule, no tight loop', async () => {
    const figures = await withServe('malformed', async (serve, events) => {
      await twoEventsEnd(serve, events, 'failed');
      for (const row of await events()) {
        expect(row.attempts).toBe(ATTEMPTS);
        expect(String(row.last_error)).toMatch(/results/);
      }
      // A third event, once failed, marks a point after which the first two would show any retry loop.
      expect(await deliverOne(serve)).toBe(200);
      await until(
        'the third event ends failed',
        async () => (await events()).at(-1)?.status === 'failed',
        90_000,
      );
    });
    record('malformed', figures, {});
    expect(figures.peakMb - figures.startMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    // One call per lane attempt (a malformed 200 is not retried within the call), batches aside.
    expect(hostile.hostileRequests).toBeGreaterThanOrEqual(ATTEMPTS);
    expect(hostile.hostileRequests).toBeLessThanOrEqual(3 * ATTEMPTS);
  }, 200_000);

  it('stops paging a search that never ends at 10,000 results, and delivers', async () => {
    hostile.searchFirstPages = 0;
    hostile.searchNextPages = 0;
    const figures = await withServe('paging', async (serve, events) => {
      await twoEventsEnd(serve, events, 'delivered', 200_000);
    });
    record('paging', figures, { searches: hostile.searchFirstPages, nextPages: hostile.searchNextPages });
    expect(figures.peakMb - figures.startMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    expect(hostile.searchFirstPages).toBeGreaterThan(0);
    expect(hostile.searchNextPages).toBeGreaterThan(0);
    expect(hostile.searchFirstPages + hostile.searchNextPages).toBeLessThanOrEqual(
      hostile.searchFirstPages * MAX_SEARCH_PAGES,
    );
  }, 240_000);
});

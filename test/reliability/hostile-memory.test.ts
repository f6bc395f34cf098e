/**
 * Issue 43's "done when" for a CRM's answers: the real `hooksync serve` under HOOKSYNC_MEMORY_MB=256, its
 * HubSpot destination answered by a hostile server written here, in turn with an 8 MiB `{"results":[0,…]}`
 * and with 429s whose policyName is 7 MiB and new each time, while /metrics is scraped after every answer.
 * serve stays alive, its peak resident set (VmHWM, the kernel's high-water mark, not a sample) stays under
 * the ceiling, /metrics stays small, and deliveries keep being acknowledged. One process for both cases;
 * nothing is timed: each step waits for the hostile side to have answered. The same cases with figures:
 * bench/hostile-memory.mjs.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeText } from '../helpers/envelope-texts.js';
import { deliver } from '../helpers/receiver-harness.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import { type ServeProcess, spawnServe, useServeFixture } from '../helpers/spawn-serve.js';
import { signDelivery } from '../helpers/webhook-signer.js';
import { until } from '../integration/destinations/destinations-context.js';

const CEILING_MB = 256;
const MIB = 1024 * 1024;
/** Just under 8 MiB: under the CRM client's own cap, over the plan's. */
const ZEROS = Buffer.from(`{"results":[${'0,'.repeat(4 * MIB - 8)}0]}`);

type Mode = 'zeros' | 'policy429';
const hostile = { mode: 'zeros' as Mode, answered: 0 };
let server: Server;
let hostileUrl: string;

const fixture = useServeFixture('hooksync-hostile-memory-');
let serve: ServeProcess | undefined;
let exit: number | string | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      hostile.answered += 1;
      if (hostile.mode === 'zeros') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': ZEROS.length });
        res.end(ZEROS);
        return;
      }
      const body = Buffer.from(
        JSON.stringify({
          status: 'error',
          message: 'You have reached your ten_secondly_rolling limit.',
          errorType: 'RATE_LIMIT',
          policyName: `${randomUUID()}${'P'.repeat(7 * MIB)}`,
        }),
      );
      res.writeHead(429, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hostileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const destinations = join(fixture.dir, 'destinations.json');
  writeFileSync(
    destinations,
    JSON.stringify({
      destinations: [
        {
          name: 'crm',
          type: 'hubspot',
          token: { env: 'HUBSPOT_TOKEN' },
          base_url: hostileUrl,
          timeout: '10s',
          retry: { schedule: ['1s', '1s', '1s'] },
        },
      ],
    }),
  );
  serve = await spawnServe({
    HOOKSYNC_DATABASE_URL: join(fixture.dir, 'hooksync.db'),
    HOOKSYNC_JWKS_URL: fixture.jwks.url,
    HOOKSYNC_DESTINATIONS: destinations,
    HOOKSYNC_MEMORY_MB: String(CEILING_MB),
    HUBSPOT_TOKEN: 'pat-na1-hostile',
  });
  void serve.exited.then((code) => {
    exit = code;
  });
}, 60_000);

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  await serve?.exited;
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** The process's peak resident set (VmHWM) in bytes. */
function peakResidentBytes(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb === undefined ? Number.NaN : Number(kb) * 1024;
}

let delivered = 0;
/** Delivers one signed company reveal (its domain made unique); returns the HTTP status. */
async function deliverOne(): Promise<number> {
  delivered += 1;
  const base = envelopeText('company-reveal');
  const text = base.text.replaceAll('acme-robotics.com', `hostile-memory-${delivered}.com`);
  const iat = Math.floor(Date.now() / 1000);
  const answer = await deliver(
    serve!.url,
    text,
    await signDelivery(text, { key: fixture.key, iat, jobId: base.jobId }),
  );
  return answer.status;
}

/** Answers `mode` until the hostile side has answered `answers` more requests, scraping /metrics meanwhile. */
async function feed(mode: Mode, answers: number): Promise<number> {
  hostile.mode = mode;
  const target = hostile.answered + answers;
  expect(await deliverOne()).toBe(200);
  let metricsBytes = 0;
  await until(
    `the hostile CRM answered ${answers} requests with ${mode}`,
    async () => {
      if (exit !== undefined) throw new Error(`serve exited (${exit}):\n${serve!.stderr().slice(-4000)}`);
      metricsBytes = Math.max(metricsBytes, (await (await fetch(`${serve!.url}/metrics`)).text()).length);
      return hostile.answered >= target;
    },
    90_000,
  );
  return metricsBytes;
}

describe(`hooksync serve under HOOKSYNC_MEMORY_MB=${CEILING_MB} against a hostile CRM`, () => {
  it('stays alive and under the ceiling through 8 MiB pages of zeros and 7 MiB policyNames, /metrics small', async () => {
    const zerosMetrics = await feed('zeros', 4);
    const policyMetrics = await feed('policy429', 4);
    // Still receiving, and still answering the unauthenticated /metrics.
    expect(await deliverOne()).toBe(200);
    const metrics = (await (await fetch(`${serve!.url}/metrics`)).text()).length;
    const peak = peakResidentBytes(serve!.child.pid!);
    recordReliabilityFigures('hostile-memory', {
      ceiling_mb: CEILING_MB,
      peak_rss_mib: Math.round(peak / MIB),
      hostile_answers: hostile.answered,
      metrics_kib: Math.round(Math.max(zerosMetrics, policyMetrics, metrics) / 1024),
    });
    expect(exit).toBeUndefined();
    expect(peak).toBeLessThanOrEqual(CEILING_MB * MIB);
    expect(Math.max(zerosMetrics, policyMetrics, metrics)).toBeLessThan(64 * 1024);
  }, 200_000);
});

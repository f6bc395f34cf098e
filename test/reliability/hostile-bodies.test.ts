import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countJobs } from '../../src/storage/job-queries.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { envelopeText } from '../helpers/envelope-texts.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import {
  holdRequest,
  postBody,
  residentBytes,
  sampleResident,
  sqliteBytes,
} from '../helpers/reliability-flood.js';
import { RELIABILITY_MODE } from '../helpers/reliability-scale.js';
import { affordableConnections } from '../helpers/reliability-slow-loris.js';
import { type ServeProcess, spawnServe, useServeFixture } from '../helpers/spawn-serve.js';
import { createSigningKey, signDelivery } from '../helpers/webhook-signer.js';

const MIB = 1024 * 1024;
/** Concurrent bodies of each kind (forged, unsigned) and their size: the figures. */
const FLOOD_BODIES = 40;
const FLOOD_BODY_BYTES = 31 * MIB;
const ROUNDS = RELIABILITY_MODE === 'full' ? 3 : 1;
/** The bounds. */
const PEAK_OVER_IDLE_BYTES = 350 * 1000 * 1000;
const DATABASE_GROWTH_BYTES = 64 * 1000 * 1000;
const GENUINE_ANSWER_MS = 5000;

const fixture = useServeFixture('hooksync-hostile-');
let databaseUrl: string;
let serve: ServeProcess | undefined;

beforeAll(async () => {
  databaseUrl = join(fixture.dir, 'hooksync.db');
  serve = await spawnServe({ HOOKSYNC_DATABASE_URL: databaseUrl, HOOKSYNC_JWKS_URL: fixture.jwks.url });
}, 60_000);

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  await serve?.exited;
});

async function genuine(): Promise<{ status: number | undefined; ms: number }> {
  const { text, jobId } = envelopeText('search-contact');
  const token = await signDelivery(text, { key: fixture.key, iat: Math.floor(Date.now() / 1000), jobId });
  const answer = await postBody(
    `${serve!.url}/webhooks`,
    Buffer.from(text),
    { 'content-type': 'application/json', 'x-webhook-signature': token },
    GENUINE_ANSWER_MS,
  );
  return { status: answer.status, ms: answer.ms };
}

describe(`hostile bodies against hooksync serve (${RELIABILITY_MODE})`, () => {
  it(
    'keeps memory and disk bounded under forged and unsigned floods of 31 MiB bodies, and answers genuine deliveries',
    async () => {
      const pid = serve!.child.pid!;
      const url = `${serve!.url}/webhooks`;
      for (let i = 0; i < 5; i++) expect((await genuine()).status).toBe(200);
      const idle = residentBytes(pid);
      const databaseBefore = sqliteBytes(databaseUrl);
      const attacker = await createSigningKey(fixture.key.kid);
      const big = Buffer.alloc(FLOOD_BODY_BYTES, 0x20);
      const { jobId } = envelopeText('search-contact');
      // Signed by another key under the genuine kid: the signature fails, the body is never read.
      const forgedToken = await signDelivery('{}', {
        key: attacker,
        iat: Math.floor(Date.now() / 1000),
        jobId,
      });
      const sampler = sampleResident(pid);
      const statuses = new Map<string, number>();
      const genuineMs: number[] = [];
      const started = performance.now();
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const flood = [
            ...Array.from({ length: FLOOD_BODIES }, () =>
              postBody(
                url,
                big,
                { 'content-type': 'application/json', 'x-webhook-signature': forgedToken },
                60_000,
              ),
            ),
            ...Array.from({ length: FLOOD_BODIES }, () =>
              postBody(url, big, { 'content-type': 'application/json' }, 60_000),
            ),
          ];
          const during = (async () => {
            for (let i = 0; i < 10; i++) {
              const answer = await genuine();
              expect(answer.status, `genuine delivery ${i} of round ${round}`).toBe(200);
              genuineMs.push(Math.round(answer.ms));
            }
          })();
          const answers = await Promise.all(flood);
          await during;
          for (const answer of answers) {
            const label = `${answer.status ?? answer.ended}`;
            statuses.set(label, (statuses.get(label) ?? 0) + 1);
          }
        }
      } finally {
        sampler.stop();
      }
      const floodMs = performance.now() - started;
      const peak = sampler.peak();
      // Memory given back (or at least not held) once the flood is over.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const after = residentBytes(pid);
      const databaseAfter = sqliteBytes(databaseUrl);

      recordReliabilityFigures(`hostile-bodies-${RELIABILITY_MODE}`, {
        rounds: ROUNDS,
        bodies_per_round: 2 * FLOOD_BODIES,
        body_mib: FLOOD_BODY_BYTES / MIB,
        answers: Object.fromEntries(statuses),
        flood_ms: Math.round(floodMs),
        rss_idle_mb: Math.round(idle / 1e6),
        rss_peak_mb: Math.round(peak / 1e6),
        rss_after_mb: Math.round(after / 1e6),
        database_growth_mb: Number(((databaseAfter - databaseBefore) / 1e6).toFixed(2)),
        genuine_ms_max: Math.max(...genuineMs),
      });
      expect(statuses.get('200') ?? 0).toBe(0);
      // Every flood request got its refusal (401) or, when the close raced the answer, a reset.
      for (const label of statuses.keys()) expect(['401', 'reset']).toContain(label);
      expect(statuses.get('401') ?? 0).toBeGreaterThan(0);
      expect(peak - idle).toBeLessThan(PEAK_OVER_IDLE_BYTES);
      expect(databaseAfter - databaseBefore).toBeLessThan(DATABASE_GROWTH_BYTES);
      expect(Math.max(...genuineMs)).toBeLessThan(GENUINE_ANSWER_MS);

      serve!.child.kill('SIGTERM');
      await serve!.exited;
      const database = await openDatabase(databaseUrl);
      try {
        expect(await countJobs(database.db)).toBe(5 + 10 * ROUNDS);
        // No refusal kept more than the unsigned prefix (64 KiB) of what it was sent.
        const largest = await database.db
          .selectFrom('quarantine')
          .select((eb) => eb.fn.max('body_bytes').as('bytes'))
          .executeTakeFirst();
        expect(Number(largest?.bytes ?? 0)).toBeLessThanOrEqual(64 * 1024);
      } finally {
        await database.close();
      }
    },
    RELIABILITY_MODE === 'full' ? 300_000 : 120_000,
  );

  it('answers genuine deliveries within 5 s while hundreds of unsigned bodies trickle in', async () => {
    // The first test stopped its serve: this one starts its own.
    serve = await spawnServe({
      HOOKSYNC_DATABASE_URL: join(fixture.dir, 'slow.db'),
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
    });
    const port = Number(new URL(serve.url).port);
    const wanted = affordableConnections(RELIABILITY_MODE === 'full' ? 2000 : 300);
    const body = Buffer.alloc(1024 * 1024, 0x20);
    const slow = Array.from({ length: wanted }, () =>
      holdRequest(port, { 'content-type': 'application/json' }, body, 1),
    );
    const answers = new Map<string, number>();
    const tally = Promise.all(
      slow.map(async (request) => {
        const status = await request.answered;
        answers.set(`${status ?? 'closed'}`, (answers.get(`${status ?? 'closed'}`) ?? 0) + 1);
      }),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const genuineMs: number[] = [];
      for (let i = 0; i < 20; i++) {
        const answer = await genuine();
        expect(answer.status, `genuine delivery ${i} during the slow bodies`).toBe(200);
        genuineMs.push(Math.round(answer.ms));
      }
      recordReliabilityFigures(`slow-unsigned-bodies-${RELIABILITY_MODE}`, {
        sockets: wanted,
        genuine_ms_max: Math.max(...genuineMs),
      });
      expect(Math.max(...genuineMs)).toBeLessThan(GENUINE_ANSWER_MS);
    } finally {
      for (const request of slow) request.destroy();
    }
    await tally;
    // Beyond the unsigned pool (64), each was answered 429 at once.
    expect(answers.get('429') ?? 0).toBeGreaterThan(0);
  }, 60_000);
});

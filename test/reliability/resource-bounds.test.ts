/**
 * Resource bounds (issue 7, part 4), against the real `hooksync serve` with its defaults: while slow-loris
 * sockets hold connections open and a flood of deliveries signed under forged kids arrives, valid
 * deliveries are still answered 200 (each within a generous bound), and the forged kids do not make the
 * receiver refetch the key set more often than its unknown-kid cooldown (30 s by default) allows.
 * Latencies are printed, never compared.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countJobs } from '../../src/storage/job-queries.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { DEFAULT_UNKNOWN_KID_COOLDOWN_MS } from '../../src/webhooks/key-set-cache.js';
import { envelopeText } from '../helpers/envelope-texts.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import { RELIABILITY_SCALE as SCALE } from '../helpers/reliability-scale.js';
import { affordableConnections, openFileLimit, startSlowLoris } from '../helpers/reliability-slow-loris.js';
import { type ServeProcess, spawnServe, useServeFixture } from '../helpers/spawn-serve.js';
import { createSigningKey, type SigningKey, signDelivery } from '../helpers/webhook-signer.js';

/** A valid delivery not answered 200 within this many ms fails the test (a bound, not a speed target). */
const VALID_ANSWER_BOUND_MS = 5000;
/** Forged-kid deliveries in flight at once. */
const FLOOD_CONCURRENCY = 16;

const fixture = useServeFixture('hooksync-resource-');
let serve: ServeProcess | undefined;
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = join(fixture.dir, 'hooksync.db');
  serve = await spawnServe({ HOOKSYNC_DATABASE_URL: databaseUrl, HOOKSYNC_JWKS_URL: fixture.jwks.url });
}, 60_000);

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  await serve?.exited;
});

/** One delivery with the real clock (the child verifies with its own): status and ms to the answer. */
async function deliverOnce(signingKey: SigningKey, kid?: string): Promise<{ status: number; ms: number }> {
  const { text, jobId } = envelopeText('company-reveal');
  const token = await signDelivery(text, {
    key: signingKey,
    iat: Math.floor(Date.now() / 1000),
    jobId,
    ...(kid === undefined ? {} : { header: { kid } }),
  });
  const started = performance.now();
  const response = await fetch(`${serve!.url}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': token },
    body: text,
    signal: AbortSignal.timeout(VALID_ANSWER_BOUND_MS),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: Math.round(performance.now() - started) };
}

function percentiles(values: readonly number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? Number.NaN };
}

describe(`resource bounds of hooksync serve (${SCALE.mode})`, () => {
  it(
    'answers valid deliveries under slow-loris and forged kids, and refetches the key set within its cooldown',
    async () => {
      const connections = affordableConnections(SCALE.slowLorisConnections);
      const baseline: number[] = [];
      for (let i = 0; i < 10; i++) {
        const answer = await deliverOnce(fixture.key);
        expect(answer.status).toBe(200);
        baseline.push(answer.ms);
      }

      const port = Number(new URL(serve!.url).port);
      const attack = startSlowLoris({ port, connections, byteIntervalMs: 1000 });
      const valid: number[] = [];
      const forged = new Map<number, number>();
      let hitsBefore = 0;
      let attackMs = 0;
      try {
        await attack.allConnected(30_000);
        hitsBefore = fixture.jwks.hits;
        const attackStarted = performance.now();
        const attacker = await createSigningKey('attacker');
        // Both streams are spread over the attack's duration, so that they meet the slow-loris all along.
        const pace = (i: number, count: number) =>
          sleep(Math.max(0, attackStarted + (i * SCALE.attackMs) / count - performance.now()));
        let nextForged = 0;
        const flood = async (): Promise<void> => {
          for (let i = nextForged++; i < SCALE.forgedKidDeliveries; i = nextForged++) {
            await pace(i, SCALE.forgedKidDeliveries);
            const { status } = await deliverOnce(attacker, `forged-${randomUUID()}`);
            forged.set(status, (forged.get(status) ?? 0) + 1);
          }
        };
        const genuine = async (): Promise<void> => {
          for (let i = 0; i < SCALE.validDeliveriesDuringAttack; i++) {
            await pace(i, SCALE.validDeliveriesDuringAttack);
            const answer = await deliverOnce(fixture.key);
            expect(answer.status, `valid delivery ${i} during the attack`).toBe(200);
            valid.push(answer.ms);
          }
        };
        await Promise.all([genuine(), ...Array.from({ length: FLOOD_CONCURRENCY }, flood)]);
        attackMs = performance.now() - attackStarted;
        // The slow-loris sockets were all held while the deliveries above were answered.
        expect(attack.open + attack.closedByServer).toBeGreaterThanOrEqual(connections);
      } finally {
        attack.stop();
      }

      const kidFetches = fixture.jwks.hits - hitsBefore;
      // One fetch for the first unknown kid, then at most one per cooldown (Events rule 8; key-set-cache.ts).
      const allowed = 1 + Math.floor(attackMs / DEFAULT_UNKNOWN_KID_COOLDOWN_MS);
      expect(kidFetches).toBeGreaterThanOrEqual(1);
      expect(kidFetches).toBeLessThanOrEqual(allowed);
      expect(forged.get(200) ?? 0).toBe(0);
      for (const status of forged.keys()) expect([401, 500]).toContain(status);

      serve!.child.kill('SIGTERM');
      await serve!.exited;
      const database = await openDatabase(databaseUrl);
      try {
        expect(await countJobs(database.db)).toBe(baseline.length + valid.length);
      } finally {
        await database.close();
      }
      recordReliabilityFigures(`resource-bounds-${SCALE.mode}`, {
        open_file_limit: openFileLimit(),
        slow_loris_connections: connections,
        slow_loris_peak_open: attack.peakOpen,
        slow_loris_closed_by_server: attack.closedByServer,
        slow_loris_header_bytes_sent: attack.bytesSent,
        forged_kid_deliveries: SCALE.forgedKidDeliveries,
        forged_answers: Object.fromEntries(forged),
        key_set_fetches_during_attack: kidFetches,
        key_set_fetches_allowed: allowed,
        attack_ms: Math.round(attackMs),
        valid_deliveries: valid.length,
        valid_ms_before_attack: percentiles(baseline),
        valid_ms_during_attack: percentiles(valid),
      });
    },
    SCALE.resourceTimeoutMs,
  );
});

/**
 * Injected faults, each observed from a real receiver and checked independently: drop, duplicate,
 * tamper, unsigned, delay, reorder, key rotation, and 500s from the finders.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseErrorObject } from '../../../src/contract/error-object.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import type { SimulatorOptions } from '../../../src/simulator/simulator-options.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { callSim, jobIdOf } from './helpers/sim-http.js';
import { fetchJwks, verifyIndependently } from './helpers/verify-independently.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close()));
});

async function setUp(options: SimulatorOptions = {}): Promise<{ sim: Simulator; receiver: Receiver }> {
  const receiver = await startReceiver(() => 200);
  const sim = await createSimulator({ seed: 'faults', retryBaseMs: 10, companyCount: 50, ...options });
  cleanups.push(
    () => sim.close(),
    () => receiver.close(),
  );
  return { sim, receiver };
}

let ipCounter = 0;
const reveal = (sim: Simulator, url: string) => {
  ipCounter += 1;
  return callSim(sim.url, 'POST', '/v1/company-reveal', {
    key: sim.apiKey,
    body: { ip: `23.45.${ipCounter % 250}.${(ipCounter * 7) % 250}`, webhook_url: url },
  });
};
const signatureOf = (receiver: Receiver, index: number) =>
  receiver.requests[index]!.headers['x-webhook-signature'] as string;

describe('delivery faults', () => {
  it('drop: never delivered, recorded as such', async () => {
    const { sim, receiver } = await setUp({ faults: { dropRate: 1 } });
    const launch = await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    expect(receiver.requests).toHaveLength(0);
    expect(sim.deliveries()).toEqual([
      expect.objectContaining({
        job_id: jobIdOf(launch),
        attempt: 0,
        jti: null,
        fault: 'drop',
        error: expect.any(String),
      }),
    ]);
  });

  it('duplicate: delivered twice, each copy a valid callback of the same job', async () => {
    const { sim, receiver } = await setUp({ faults: { duplicateRate: 1 } });
    const launch = await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    expect(receiver.requests).toHaveLength(2);
    for (let i = 0; i < 2; i += 1) {
      expect(receiver.requests[i]!.body.toString('utf8')).toBe(launch.text);
      const check = await verifyIndependently(
        signatureOf(receiver, i),
        receiver.requests[i]!.body,
        sim.jwksUrl,
      );
      expect(check.signatureValid && check.bodyHashMatches).toBe(true);
      expect(check.claims.job_id).toBe(jobIdOf(launch));
    }
    expect(sim.deliveries().map((d) => [d.copy, d.fault])).toEqual([
      [1, 'duplicate'],
      [2, 'duplicate'],
    ]);
  });

  it('tamper: the body no longer matches body_hash; the stored job is intact', async () => {
    const { sim, receiver } = await setUp({ faults: { tamperRate: 1 } });
    const launch = await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    const [request] = receiver.requests;
    const check = await verifyIndependently(signatureOf(receiver, 0), request!.body, sim.jwksUrl);
    expect(check.signatureValid).toBe(true);
    expect(check.bodyHashMatches).toBe(false);
    expect(request!.body.toString('utf8')).not.toBe(launch.text);
    expect(sim.jobText(jobIdOf(launch))).toBe(launch.text);
    const original = await verifyIndependently(
      signatureOf(receiver, 0),
      Buffer.from(launch.text),
      sim.jwksUrl,
    );
    expect(original.bodyHashMatches).toBe(true);
  });

  it('unsigned rate and --unsigned: no signature header', async () => {
    for (const options of [{ faults: { unsignedRate: 1 } }, { unsigned: true }]) {
      const { sim, receiver } = await setUp(options);
      const launch = await reveal(sim, receiver.url);
      await sim.waitForDeliveries();
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]!.headers).not.toHaveProperty('x-webhook-signature');
      expect(receiver.requests[0]!.body.toString('utf8')).toBe(launch.text);
      expect(sim.deliveries()[0]).toMatchObject({ jti: null, kid: null });
    }
  });

  it('rates draw faults reproducibly from the seed', async () => {
    const faults = { dropRate: 0.3, duplicateRate: 0.2, tamperRate: 0.2 };
    const runs: (string | null)[][] = [];
    for (let run = 0; run < 2; run += 1) {
      const { sim, receiver } = await setUp({ faults });
      for (let i = 0; i < 12; i += 1) await reveal(sim, receiver.url);
      await sim.waitForDeliveries();
      runs.push(
        sim
          .deliveries()
          .filter((d) => d.copy === 1)
          .map((d) => d.fault),
      );
    }
    expect(runs[0]).toHaveLength(12);
    expect(runs[1]).toEqual(runs[0]);
    expect(new Set(runs[0]).size).toBeGreaterThan(2);
  });

  it('delay: the first attempt waits --delay-ms', async () => {
    const { sim, receiver } = await setUp({ delayMs: 200 });
    const startedMs = performance.now();
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    expect(receiver.requests[0]!.atMs - startedMs).toBeGreaterThanOrEqual(195);
  });

  it('reorder: callbacks of one window arrive shuffled, none lost', async () => {
    const { sim, receiver } = await setUp({ reorder: true, reorderWindowMs: 400 });
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) ids.push(jobIdOf(await reveal(sim, receiver.url)));
    await sim.waitForDeliveries();
    const arrived = receiver.requests.map(
      (r) =>
        (JSON.parse(r.body.toString('utf8')) as { input: { task: { job_id: string } } }).input.task.job_id,
    );
    expect([...arrived].sort()).toEqual([...ids].sort());
    expect(arrived).not.toEqual(ids);
  });
});

describe('signing keys', () => {
  it('rotation: the new kid signs, the old kid stays in the key set until the grace period ends', async () => {
    let clockMs = Date.UTC(2026, 0, 1);
    const { sim, receiver } = await setUp({ rotationGraceMs: 60_000, now: () => clockMs });
    const oldKid = sim.jwks().keys[0]!.kid;
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    const rotated = await callSim(sim.url, 'POST', '/_sim/rotate-keys', { key: sim.apiKey });
    expect(rotated.status).toBe(200);
    const { kid: newKid, previous_kid } = rotated.json as { kid: string; previous_kid: string };
    expect(previous_kid).toBe(oldKid);
    expect(newKid).not.toBe(oldKid);
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    const checks = await Promise.all(
      [0, 1].map((i) =>
        verifyIndependently(signatureOf(receiver, i), receiver.requests[i]!.body, sim.jwksUrl),
      ),
    );
    expect(checks.map((c) => c.header.kid)).toEqual([oldKid, newKid]);
    expect(checks.every((c) => c.signatureValid && c.bodyHashMatches)).toBe(true);
    expect((await fetchJwks(sim.jwksUrl)).map((k) => k.kid)).toEqual([newKid, oldKid]);
    clockMs += 60_000;
    expect((await fetchJwks(sim.jwksUrl)).map((k) => k.kid)).toEqual([newKid]);
  });

  it('--rotate-every N rotates after every N signed deliveries', async () => {
    const { sim, receiver } = await setUp({ rotateEvery: 2 });
    for (let i = 0; i < 5; i += 1) await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    const kids = sim.deliveries().map((d) => d.kid);
    expect(kids[0]).toBe(kids[1]);
    expect(kids[2]).not.toBe(kids[1]);
    expect(kids[2]).toBe(kids[3]);
    expect(kids[4]).not.toBe(kids[3]);
    expect(new Set((await fetchJwks(sim.jwksUrl)).map((k) => k.kid))).toEqual(new Set(kids));
  });

  it('--keys FILE keeps the key across restarts', async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'hooksync-sim-keys-'));
    try {
      const file = join(dir, 'keys.json');
      const first = await createSimulator({ keysFile: file, companyCount: 10 });
      const kid = first.jwks().keys[0]!.kid;
      await first.close();
      expect(JSON.parse(readFileSync(file, 'utf8')).keys[0]).toMatchObject({
        kid,
        crv: 'Ed25519',
        d: expect.any(String),
      });
      const second = await createSimulator({ keysFile: file, companyCount: 10 });
      expect(second.jwks().keys.map((k) => k.kid)).toEqual([kid]);
      const { kid: rotated } = second.rotateKeys();
      await second.close();
      const third = await createSimulator({ keysFile: file, companyCount: 10 });
      expect(third.jwks().keys.map((k) => k.kid)).toEqual([rotated, kid]);
      await third.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('controls and finder errors', () => {
  it('--error-rate answers 500 INTERNAL_UNCLASSIFIED_ERROR from the finders, reproducibly', async () => {
    const { sim } = await setUp({ errorRate: 1 });
    const launch = await callSim(sim.url, 'POST', '/v1/job/change', {
      key: sim.apiKey,
      body: { contact_linkedin: 'jane-doe' },
    });
    expect(launch.status).toBe(200);
    const found = await callSim(sim.url, 'GET', `/v1/job/change?job_id=${jobIdOf(launch)}`, {
      key: sim.apiKey,
    });
    expect(found.status).toBe(500);
    expect(parseErrorObject(found.json)).toMatchObject({
      code: 'INTERNAL_UNCLASSIFIED_ERROR',
      category: 'INTERNAL',
    });

    const patterns: number[][] = [];
    for (let run = 0; run < 2; run += 1) {
      const { sim: half } = await setUp({ errorRate: 0.5 });
      const job = await callSim(half.url, 'POST', '/v1/job/change', {
        key: half.apiKey,
        body: { contact_linkedin: 'jane-doe' },
      });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) {
        statuses.push(
          (await callSim(half.url, 'GET', `/v1/job/change?job_id=${jobIdOf(job)}`, { key: half.apiKey }))
            .status,
        );
      }
      patterns.push(statuses);
    }
    expect(patterns[1]).toEqual(patterns[0]);
    expect(new Set(patterns[0])).toEqual(new Set([200, 500]));
  });

  it('lists deliveries on /_sim/deliveries and forgets everything on /_sim/reset', async () => {
    const { sim, receiver } = await setUp({ balanceUsd: 1 });
    const launch = await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    const listed = await callSim(sim.url, 'GET', '/_sim/deliveries', { key: sim.apiKey });
    expect(listed.json).toEqual({ deliveries: JSON.parse(JSON.stringify(sim.deliveries())) });
    expect((listed.json as { deliveries: { job_id: string }[] }).deliveries[0]!.job_id).toBe(jobIdOf(launch));
    const reset = await callSim(sim.url, 'POST', '/_sim/reset', { key: sim.apiKey });
    expect(reset.status).toBe(200);
    expect(sim.deliveries()).toEqual([]);
    expect(sim.jobs()).toEqual([]);
    expect(sim.balanceUsd()).toBe(1);
    expect(
      (await callSim(sim.url, 'GET', `/v1/job/change?job_id=${jobIdOf(launch)}`, { key: sim.apiKey })).status,
    ).toBe(404);
  });
});

/**
 * Webhook delivery, checked independently of hooksync's verifier: a real receiver on port 0, the
 * signature verified with node:crypto against the key set fetched over HTTP, body_hash recomputed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { uuidSchema } from '../../../src/contract/formats.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import type { SimulatorOptions } from '../../../src/simulator/simulator-options.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { callSim, jobIdOf } from './helpers/sim-http.js';
import { verifyIndependently } from './helpers/verify-independently.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close()));
});

async function setUp(
  answer: Parameters<typeof startReceiver>[0],
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; receiver: Receiver }> {
  const receiver = await startReceiver(answer);
  const sim = await createSimulator({ seed: 'webhooks', retryBaseMs: 20, companyCount: 50, ...options });
  cleanups.push(
    () => sim.close(),
    () => receiver.close(),
  );
  return { sim, receiver };
}

const reveal = (sim: Simulator, url: string, ip = '23.45.67.89') =>
  callSim(sim.url, 'POST', '/v1/company-reveal', { key: sim.apiKey, body: { ip, webhook_url: url } });

describe('a signed callback, checked independently', () => {
  it('is the finder payload, signed as the interface specifies', async () => {
    const clockMs = Date.UTC(2026, 10, 22, 10, 11, 12, 345);
    const { sim, receiver } = await setUp(() => 200, { now: () => clockMs });
    const launch = await reveal(sim, receiver.url);
    expect(launch.status).toBe(200);
    await sim.waitForDeliveries();
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/json');
    // Company Reveal is synchronous and ALSO delivered: the same bytes the launcher answered.
    expect(request!.body.toString('utf8')).toBe(launch.text);
    const token = request!.headers['x-webhook-signature'];
    expect(typeof token).toBe('string');
    const check = await verifyIndependently(token as string, request!.body, sim.jwksUrl);
    expect(check.signatureValid).toBe(true);
    expect(check.bodyHashMatches).toBe(true);
    expect(check.header).toEqual({ alg: 'EdDSA', kid: sim.jwks().keys[0]!.kid, typ: 'JWT' });
    const iat = Math.floor(clockMs / 1000);
    expect(check.claims).toEqual({
      iat,
      exp: iat + 900,
      jti: expect.any(String),
      job_id: jobIdOf(launch),
      body_hash: check.bodyHash,
      body_hash_alg: 'sha-256',
    });
    expect(uuidSchema.safeParse(check.claims.jti).success).toBe(true);
    expect(sim.deliveries()).toEqual([
      expect.objectContaining({
        job_id: jobIdOf(launch),
        copy: 1,
        attempt: 1,
        jti: check.claims.jti,
        status: 200,
        fault: null,
      }),
    ]);
  });

  it('delivers Search Contact and Job Change jobs that carry webhook_url', async () => {
    const { sim, receiver } = await setUp(() => 204);
    const search = await callSim(sim.url, 'POST', '/v1/search/contact', {
      key: sim.apiKey,
      body: { domain: 'acme.com', page_size: 2, webhook_url: receiver.url },
    });
    const change = await callSim(sim.url, 'POST', '/v1/job/change', {
      key: sim.apiKey,
      body: { contact_linkedin: 'jane-doe', webhook_url: receiver.url },
    });
    await sim.waitForDeliveries();
    const bodies = receiver.requests.map((r) => r.body.toString('utf8')).sort();
    expect(bodies).toEqual([search.text, change.text].sort());
    for (const r of receiver.requests) {
      const check = await verifyIndependently(
        r.headers['x-webhook-signature'] as string,
        r.body,
        sim.jwksUrl,
      );
      expect(check.signatureValid && check.bodyHashMatches).toBe(true);
    }
  });

  it('with --async-ms answers RUNNING, then delivers the finished job that the finder then returns', async () => {
    const { sim, receiver } = await setUp(() => 200, { asyncMs: 1_000 });
    const launch = await callSim(sim.url, 'POST', '/v1/job/change', {
      key: sim.apiKey,
      body: { contact_linkedin: 'jane-doe', webhook_url: receiver.url },
    });
    const running = launch.json as Record<string, unknown>;
    expect(running.status).toBe('RUNNING');
    expect(running).not.toHaveProperty('stop_date');
    expect(running).not.toHaveProperty('output');
    const finder = `/v1/job/change?job_id=${jobIdOf(launch)}`;
    expect((await callSim(sim.url, 'GET', finder, { key: sim.apiKey })).text).toBe(launch.text);
    expect(receiver.requests).toHaveLength(0);
    await sim.waitForDeliveries();
    const finished = await callSim(sim.url, 'GET', finder, { key: sim.apiKey });
    expect(finished.json).toMatchObject({
      status: 'SUCCEEDED',
      stop_date: expect.any(String),
      output: expect.any(Object),
    });
    expect((finished.json as { input: unknown }).input).toEqual(running.input);
    expect(receiver.requests.map((r) => r.body.toString('utf8'))).toEqual([finished.text]);
    // Company Reveal stays synchronous.
    expect((await reveal(sim, receiver.url)).json).toMatchObject({ status: 'SUCCEEDED' });
  });
});

describe('retries', () => {
  it('retries 500 five times with growing gaps (1 + 5 attempts)', async () => {
    const { sim, receiver } = await setUp(() => 500);
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    expect(receiver.requests).toHaveLength(6);
    expect(sim.deliveries().map((d) => [d.attempt, d.status])).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => [n, 500]),
    );
    const gaps = receiver.requests.slice(1).map((r, i) => r.atMs - receiver.requests[i]!.atMs);
    for (const [n, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(20 * 2 ** n - 2);
    expect(gaps[4]!).toBeGreaterThan(gaps[0]! * 2);
  });

  it.each([429, 502, 504])('retries %i up to 5 times', async (status) => {
    const { sim, receiver } = await setUp(() => status, { retryBaseMs: 5 });
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    expect(receiver.requests).toHaveLength(6);
  });

  it.each([503, 400, 404, 200, 202])('never retries %i', async (status) => {
    const { sim, receiver } = await setUp(() => status, { retryBaseMs: 5 });
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    expect(receiver.requests).toHaveLength(1);
    expect(sim.deliveries()).toHaveLength(1);
  });

  it('stops retrying once the receiver accepts', async () => {
    const { sim, receiver } = await setUp((n) => (n < 2 ? 502 : 200));
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    expect(sim.deliveries().map((d) => d.status)).toEqual([502, 502, 200]);
  });

  it('retries network errors and timeouts like a 5xx', async () => {
    // Port 2: nothing listens there, no test can bind it (they take ephemeral ports) and fetch does not block
    // it as it does port 1, so every attempt is refused; a port freed by a closed server could be taken by a
    // parallel test file.
    const closed = { url: 'http://127.0.0.1:2/webhooks' };
    const { sim, receiver } = await setUp(() => 'hang', { retryBaseMs: 5, deliveryTimeoutMs: 50 });
    await reveal(sim, closed.url);
    await reveal(sim, receiver.url, '23.45.67.90');
    await sim.waitForDeliveries();
    const byUrl = (url: string) => sim.deliveries().filter((d) => d.url === url);
    expect(byUrl(closed.url)).toHaveLength(6);
    expect(byUrl(closed.url).every((d) => d.status === undefined && d.error === 'ECONNREFUSED')).toBe(true);
    expect(byUrl(receiver.url)).toHaveLength(6);
    expect(byUrl(receiver.url).every((d) => d.error === 'timeout')).toBe(true);
  });

  it('signs each retry afresh: new jti, each one valid', async () => {
    let clockMs = Date.UTC(2026, 0, 1);
    const { sim, receiver } = await setUp((n) => (n < 2 ? 500 : 200), {
      now: () => {
        clockMs += 1500;
        return clockMs;
      },
    });
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    const checks = await Promise.all(
      receiver.requests.map((r) =>
        verifyIndependently(r.headers['x-webhook-signature'] as string, r.body, sim.jwksUrl),
      ),
    );
    expect(checks.every((c) => c.signatureValid && c.bodyHashMatches)).toBe(true);
    expect(new Set(checks.map((c) => c.claims.jti)).size).toBe(3);
    expect(new Set(checks.map((c) => c.claims.iat)).size).toBe(3);
    expect(sim.deliveries().map((d) => d.jti)).toEqual(checks.map((c) => c.claims.jti));
  });

  it('--reuse-token sends the first token again on every retry', async () => {
    let clockMs = Date.UTC(2026, 0, 1);
    const { sim, receiver } = await setUp((n) => (n < 2 ? 500 : 200), {
      reuseToken: true,
      now: () => {
        clockMs += 1500;
        return clockMs;
      },
    });
    await reveal(sim, receiver.url);
    await sim.waitForDeliveries();
    const tokens = receiver.requests.map((r) => r.headers['x-webhook-signature']);
    expect(tokens).toHaveLength(3);
    expect(new Set(tokens).size).toBe(1);
  });
});

/**
 * Rate limits (account and per key) and the balance, over real sockets. Most windows run on an injected
 * clock so that no test sleeps through them; one runs on real time to show Retry-After is truthful.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseErrorObject } from '../../../src/contract/error-object.js';
import { formatRateLimitMessage } from '../../../src/contract/rate-limit.js';
import { ValidationError } from '../../../src/errors.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { callSim } from './helpers/sim-http.js';

const opened: Simulator[] = [];
async function open(options: Parameters<typeof createSimulator>[0]): Promise<Simulator> {
  const sim = await createSimulator({ companyCount: 50, ...options });
  opened.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((sim) => sim.close()));
});

const SEARCH = { domain: 'acme.com', page_size: 1 };
const search = (sim: Simulator, key = sim.apiKey) =>
  callSim(sim.url, 'POST', '/v1/search/contact', { key, body: SEARCH });

describe('rate limit', () => {
  it('answers 429 with the message and the four headers, and a retry after Retry-After succeeds', async () => {
    let clockMs = Date.UTC(2026, 0, 1);
    const sim = await open({ rate: { perInterval: 5, intervalSeconds: 2 }, now: () => clockMs });
    for (let i = 0; i < 5; i += 1) {
      const answer = await search(sim);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
      clockMs += 100;
    }
    const refused = await search(sim);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBe(2);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
    expect(refused.headers.get('x-ratelimit-interval')).toBe('2');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(parseErrorObject(refused.json)).toMatchObject({
      code: 'RATE_LIMIT_RATE_LIMIT_EXCEEDED',
      category: 'RATE_LIMIT',
      message: formatRateLimitMessage(retryAfter),
    });
    // Finders count too; Company Reveal is not among the limited APIs.
    expect((await callSim(sim.url, 'GET', '/v1/job/change?job_id=x', { key: sim.apiKey })).status).toBe(429);
    expect(
      (await callSim(sim.url, 'POST', '/v1/company-reveal', { key: sim.apiKey, body: { ip: '1.2.3.4' } }))
        .status,
    ).toBe(200);
    clockMs += retryAfter * 1000;
    expect((await search(sim)).status).toBe(200);
  });

  it('Retry-After holds on real time too', async () => {
    const sim = await open({ rate: { perInterval: 2, intervalSeconds: 1 } });
    expect((await search(sim)).status).toBe(200);
    expect((await search(sim)).status).toBe(200);
    const refused = await search(sim);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await search(sim)).status).toBe(200);
  });

  it("holds each sub-key to its own per_interval beside the account's", async () => {
    let clockMs = 0;
    const sim = await open({
      rate: { perInterval: 4, intervalSeconds: 60 },
      subKeys: [{ apiKey: 'slow', rate: { perInterval: 1, intervalSeconds: 30 } }],
      now: () => clockMs,
    });
    expect((await search(sim, 'slow')).status).toBe(200);
    const refused = await search(sim, 'slow');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('1');
    expect(refused.headers.get('x-ratelimit-interval')).toBe('30');
    expect(refused.headers.get('retry-after')).toBe('30');
    for (let i = 0; i < 3; i += 1) expect((await search(sim)).status).toBe(200);
    const account = await search(sim);
    expect(account.headers.get('x-ratelimit-limit')).toBe('4');
    clockMs += 30_000;
    // The sub-key's own window is free again, the account's is not: the longer wait is the truthful one.
    expect((await search(sim, 'slow')).headers.get('retry-after')).toBe('30');
  });

  it('refuses to start with a sub-key rate above the master key rate', async () => {
    const start = createSimulator({
      rate: { perInterval: 5, intervalSeconds: 2 },
      subKeys: [{ apiKey: 'greedy', rate: { perInterval: 10, intervalSeconds: 2 } }],
    });
    await expect(start).rejects.toBeInstanceOf(ValidationError);
    await expect(start).rejects.toMatchObject({ code: 'VALIDATION_SUBKEY_RATE_EXCEEDS_MASTER' });
  });
});

describe('balance', () => {
  it('charges each job from the price table and answers 402 once it runs out', async () => {
    const sim = await open({ balanceUsd: 0.05 });
    const page = await callSim(sim.url, 'POST', '/v1/search/contact', {
      key: sim.apiKey,
      body: { domain: 'acme.com', page_size: 3 },
    });
    expect(page.status).toBe(200);
    const usage = (page.json as { output: { usage: Record<string, number> } }).output.usage;
    expect(usage).toEqual({
      total_usd: 0.03,
      balance_remaining_usd: 0.02,
      persons_count: 3,
      persons_usd: 0.03,
      phones_count: 0,
      phones_usd: 0,
      companies_count: 0,
      companies_usd: 0,
    });
    const tooDear = await callSim(sim.url, 'POST', '/v1/search/contact', {
      key: sim.apiKey,
      body: { domain: 'acme.com', page_size: 3 },
    });
    expect(tooDear.status).toBe(402);
    expect(parseErrorObject(tooDear.json)).toMatchObject({
      code: 'QUOTA_ACCOUNT_OVER_QUOTA',
      category: 'QUOTA',
    });
    const check = await callSim(sim.url, 'POST', '/v1/job/change', {
      key: sim.apiKey,
      body: { contact_linkedin: 'jane-doe' },
    });
    expect(
      (check.json as { output: { usage: { balance_remaining_usd: number } } }).output.usage
        .balance_remaining_usd,
    ).toBe(0);
    const empty = await callSim(sim.url, 'POST', '/v1/company-reveal', {
      key: sim.apiKey,
      body: { ip: '8.8.8.8' },
    });
    expect(empty.status).toBe(402);
    expect(sim.jobs()).toHaveLength(2);
    // The finders stay open: reconcile can still fetch what was bought.
    const jobId = sim.jobs()[0]!.job_id;
    expect(
      (await callSim(sim.url, 'GET', `/v1/search/contact?job_id=${jobId}`, { key: sim.apiKey })).status,
    ).toBe(200);
  });
});

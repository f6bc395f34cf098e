import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../../src/client/create-client.js';
import { ServiceError } from '../../../src/errors.js';
import { type HttpStubServer, jsonReply, startHttpStubServer } from '../../helpers/http-stub-server.js';
import { errorObject, JOB_ID, jobChangeEnvelope } from './envelopes.js';
import { drive, retryWatch, useFakeClock } from './fake-clock.js';

let server: HttpStubServer;
beforeAll(async () => {
  server = await startHttpStubServer(() => jsonReply(200, jobChangeEnvelope()));
});
afterAll(() => server.close());

/** The largest number of arrivals inside any window [t, t + windowMs). */
function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j]! < sorted[i]! + windowMs) j++;
    best = Math.max(best, j - i);
  }
  return best;
}

describe('client pacing', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a burst of 120 calls at 10 per second never exceeds the budget as the server sees it', async () => {
    server.requests.length = 0;
    server.setHandler(() => jsonReply(200, jobChangeEnvelope()));
    const client = createClient({
      baseUrl: server.url,
      apiKey: 'pacing-key',
      rateLimit: { perInterval: 10, intervalSeconds: 1 },
    });
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 120 }, () => client.jobChange.find(JOB_ID)));
    const elapsedMs = performance.now() - started;
    expect(results).toHaveLength(120);
    const arrivals = server.requests.map((r) => r.receivedAtMs);
    expect(arrivals).toHaveLength(120);
    expect(maxInWindow(arrivals, 1000)).toBeLessThanOrEqual(10);
    // Twelve bursts of ten: eleven waits of one second, plus the 50 ms margin and the answer time each.
    expect(elapsedMs).toBeGreaterThanOrEqual(11 * 1000);
    expect(elapsedMs).toBeLessThan(11 * 1050 + 2500);
    expect(client.pacing).toMatchObject({ requestsSent: 120, rateLimitedResponses: 0, waits: 110 });
  }, 25_000);

  it('a 429 drains the shared bucket: the next caller waits for Retry-After', async () => {
    server.setHandler(() =>
      jsonReply(
        429,
        errorObject(
          'RATE_LIMIT_RATE_LIMIT_EXCEEDED',
          'RATE_LIMIT',
          'Too many requests. Try again after 3 seconds',
        ),
        { 'retry-after': '3' },
      ),
    );
    useFakeClock();
    const watch = retryWatch();
    const client = createClient({ baseUrl: server.url, apiKey: 'k', logger: watch.logger, retries: 0 });
    await expect(client.jobChange.find(JOB_ID)).rejects.toBeInstanceOf(ServiceError);
    expect(client.pacing.blockedUntilMs).toBe(Date.now() + 3000);
    server.setHandler(() => jsonReply(200, jobChangeEnvelope()));
    await drive(client.searchContact.find(JOB_ID), watch.delays).catch(() => undefined);
    expect(watch.delays).toEqual([3000]);
    expect(client.pacing).toMatchObject({
      requestsSent: 2,
      rateLimitedResponses: 1,
      waits: 1,
      waitedMs: 3000,
    });
  });

  it("pacingScope 'rate-limited' spares the key list; neither scope paces Company Reveal", async () => {
    server.setHandler((request) =>
      request.path === '/v1/company-reveal'
        ? jsonReply(500, errorObject('INTERNAL_UNCLASSIFIED_ERROR', 'INTERNAL', 'x'))
        : jsonReply(200, jobChangeEnvelope()),
    );
    const options = { baseUrl: server.url, apiKey: 'k', retries: 0 };
    const scoped = createClient({ ...options, pacingScope: 'rate-limited' });
    await scoped.companyReveal({ ip: '8.8.8.8', custom_fields: {} }).catch(() => undefined);
    await scoped.jobChange.find(JOB_ID);
    expect(scoped.pacing.requestsSent).toBe(1);
    const all = createClient(options);
    await all.companyReveal({ ip: '8.8.8.8', custom_fields: {} }).catch(() => undefined);
    await all.jobChange.find(JOB_ID);
    await all.apiKeys.list().catch(() => undefined);
    // The job change and the key list: not the reveal.
    expect(all.pacing.requestsSent).toBe(2);
  });

  it('Company Reveal is not paced at 50 per 60 s: 120 reveals go as fast as the service answers', async () => {
    server.setHandler(() => jsonReply(200, jobChangeEnvelope()));
    useFakeClock();
    const watch = retryWatch();
    const client = createClient({ baseUrl: server.url, apiKey: 'k', logger: watch.logger });
    await Promise.all(
      Array.from({ length: 120 }, () =>
        drive(client.companyReveal({ ip: '8.8.8.8' }), watch.delays).catch(() => undefined),
      ),
    );
    expect(watch.delays).toEqual([]);
    expect(client.pacing.requestsSent).toBe(0);
  });
});

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ClientOptions, createClient } from '../../../src/client/create-client.js';
import { ServiceError } from '../../../src/errors.js';
import {
  type HttpStubServer,
  jsonReply,
  type StubHandler,
  startHttpStubServer,
} from '../../helpers/http-stub-server.js';
import { errorObject, JOB_ID, jobChangeEnvelope } from './envelopes.js';
import { drive, retryWatch, useFakeClock } from './fake-clock.js';

const API_KEY = 'retry-test-key';

let server: HttpStubServer;
beforeAll(async () => {
  server = await startHttpStubServer();
});
afterAll(() => server.close());

/** Fails `failures` times with `fail`, then answers the envelope; counts hits from this call on. */
function failThenSucceed(failures: number, fail: StubHandler): { hits: () => number } {
  let hits = 0;
  server.setHandler((request, hit) => {
    hits += 1;
    return hits <= failures ? fail(request, hit) : jsonReply(200, jobChangeEnvelope());
  });
  return { hits: () => hits };
}

/** A client on the fake clock whose retry waits are recorded in `requested` (in ms, in order). */
function fakeTime() {
  const watch = retryWatch();
  return { requested: watch.delays, logger: watch.logger, lines: watch.lines };
}
type FakeTime = ReturnType<typeof fakeTime>;

function client(time: FakeTime, extra: Partial<ClientOptions> = {}) {
  // random() = 0.5 pins the jitter: each 5xx wait is 3/4 of its backoff step.
  const c = createClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    logger: time.logger,
    random: () => 0.5,
    ...extra,
  });
  // Every call settles while its announced retry waits are played on the fake clock.
  const find = (options?: { signal?: AbortSignal }) =>
    drive(c.jobChange.find(JOB_ID, options), time.requested);
  return Object.assign(c, { find });
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

const rateLimited = (seconds: number, headers: Record<string, string> = {}) =>
  jsonReply(
    429,
    errorObject(
      'RATE_LIMIT_RATE_LIMIT_EXCEEDED',
      'RATE_LIMIT',
      `Too many requests. Try again after ${seconds} seconds`,
    ),
    headers,
  );

describe('client retries', () => {
  beforeEach(() => useFakeClock());
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits for Retry-After on a 429, then succeeds', async () => {
    const time = fakeTime();
    const { hits } = failThenSucceed(1, () => rateLimited(30, { 'retry-after': '1' }));
    const c = client(time);
    const result = await c.find();
    expect(result.job.status).toBe('SUCCEEDED');
    expect(hits()).toBe(2);
    expect(time.requested).toEqual([1000]);
    expect(c.pacing.rateLimitedResponses).toBe(1);
  });

  it('without Retry-After waits the seconds of the 429 message, else one pacing window', async () => {
    const time = fakeTime();
    failThenSucceed(1, () => rateLimited(7));
    await client(time).find();
    expect(time.requested).toEqual([7000]);

    const time2 = fakeTime();
    failThenSucceed(1, () =>
      jsonReply(429, errorObject('RATE_LIMIT_RATE_LIMIT_EXCEEDED', 'RATE_LIMIT', 'slow down')),
    );
    await client(time2, { rateLimit: { perInterval: 5, intervalSeconds: 2 } }).find();
    // The retry's own wait is the window; the drained bucket then adds only its safety margin.
    expect(time2.requested[0]).toBe(2000);
    expect(time2.requested.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2000);
  });

  for (const status of [500, 502, 503, 504]) {
    it(`retries ${status} with exponential backoff, then succeeds`, async () => {
      const time = fakeTime();
      const { hits } = failThenSucceed(3, () =>
        jsonReply(status, errorObject('INTERNAL_UNCLASSIFIED_ERROR', 'INTERNAL', 'try later')),
      );
      const result = await client(time).find();
      expect(result.job.status).toBe('SUCCEEDED');
      expect(hits()).toBe(4);
      expect(time.requested).toEqual([375, 750, 1500]);
    });
  }

  for (const [status, code, category] of [
    [400, 'VALIDATION_BAD_JOB_ID', 'VALIDATION'],
    [401, 'AUTH_MISSING_API_KEY', 'AUTH'],
    [402, 'QUOTA_ACCOUNT_OVER_QUOTA', 'QUOTA'],
    [403, 'AUTH_BAD_API_KEY', 'AUTH'],
    [404, 'NOT_FOUND_JOB_NOT_FOUND', 'NOT_FOUND'],
  ] as const) {
    it(`never retries ${status}`, async () => {
      const time = fakeTime();
      const { hits } = failThenSucceed(1, () => jsonReply(status, errorObject(code, category, 'no')));
      const error = await failure(client(time).find());
      expect([error.status, error.code]).toEqual([status, code]);
      expect(hits()).toBe(1);
      expect(time.requested).toEqual([]);
    });
  }

  it('retries a dropped connection, then succeeds', async () => {
    const time = fakeTime();
    const { hits } = failThenSucceed(2, () => 'destroy');
    const result = await client(time).find();
    expect(result.job.status).toBe('SUCCEEDED');
    expect(hits()).toBe(3);
    expect(time.requested).toEqual([375, 750]);
  });

  it('a closed server (connection refused) gives NETWORK_ERROR (status 0) at once: no retry can fix it', async () => {
    // Port 2: nothing listens there and no test binds it, unlike a just-closed ephemeral port that a parallel
    // test file may take.
    const url = 'http://127.0.0.1:2';
    const time = fakeTime();
    const error = await failure(client(time, { baseUrl: url, retries: 2 }).find());
    expect([error.status, error.code]).toEqual([0, 'NETWORK_ERROR']);
    expect(error.message).toContain(`GET /v1/job/change failed`);
    expect(error.message).toContain('ECONNREFUSED');
    expect(time.requested).toEqual([]);
  });

  it('an answer that never comes is a TIMEOUT (status 0), retried like a network error', async () => {
    const time = fakeTime();
    const { hits } = failThenSucceed(1, () => 'hang');
    const result = await client(time, { timeoutMs: 150 }).find();
    expect(result.job.status).toBe('SUCCEEDED');
    expect(hits()).toBe(2);

    failThenSucceed(10, () => 'hang');
    const error = await failure(client(fakeTime(), { timeoutMs: 100, retries: 1 }).find());
    expect([error.status, error.code]).toEqual([0, 'TIMEOUT']);
  });

  it('gives up when the next wait would overrun the retry budget', async () => {
    const time = fakeTime();
    const { hits } = failThenSucceed(5, () => rateLimited(90, { 'retry-after': '90' }));
    const error = await failure(client(time, { retryBudgetMs: 120_000 }).find());
    expect(error.code).toBe('RATE_LIMIT_RATE_LIMIT_EXCEEDED');
    expect(hits()).toBe(2);
    expect(time.requested).toEqual([90_000]);
  });

  it('stops after `retries` retries', async () => {
    const time = fakeTime();
    const { hits } = failThenSucceed(10, () => ({ status: 500 }));
    const error = await failure(client(time, { retries: 3 }).find());
    expect(error.status).toBe(500);
    expect(hits()).toBe(4);
  });

  it("honours the caller's AbortSignal, with its reason, during a retry wait and in flight", async () => {
    const controller = new AbortController();
    const { hits } = failThenSucceed(10, () => ({ status: 500 }));
    const time = fakeTime();
    const c = client(time);
    // The first wait is announced: abort instead of letting it pass; the call ends without a second attempt.
    const during = drive(c.jobChange.find(JOB_ID, { signal: controller.signal }), time.requested, () => {
      controller.abort(new Error('stop now'));
      return true;
    });
    await expect(during).rejects.toThrow('stop now');
    expect(hits()).toBe(1);

    const inFlight = new AbortController();
    const hanging = failThenSucceed(10, () => 'hang');
    const pending = client(fakeTime()).find({ signal: inFlight.signal });
    // The hanging request is real I/O: abort it once the server has it.
    while (hanging.hits() === 0) await new Promise((r) => setImmediate(r));
    inFlight.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
  });

  it('a non-retryable answer is attempted once; an aborted call stops at once', async () => {
    const time = fakeTime();
    const refused = failThenSucceed(10, () =>
      jsonReply(400, errorObject('VALIDATION_BAD_JOB_ID', 'VALIDATION', 'no such id')),
    );
    const error = await failure(client(time).find());
    expect(error.code).toBe('VALIDATION_BAD_JOB_ID');
    expect(refused.hits()).toBe(1);
    expect(time.requested).toEqual([]);

    const served = failThenSucceed(10, () => ({ status: 500 }));
    const before = new AbortController();
    before.abort(new Error('not wanted'));
    await expect(client(fakeTime()).find({ signal: before.signal })).rejects.toThrow('not wanted');
    expect(served.hits()).toBe(0);

    // Aborted during a retry wait: rejects at once, with no timer advanced and no further attempt.
    const during = new AbortController();
    const t = fakeTime();
    const c = client(t);
    const startedMs = Date.now();
    const pending = c.jobChange.find(JOB_ID, { signal: during.signal });
    while (t.requested.length === 0) await new Promise((r) => setImmediate(r));
    during.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(Date.now()).toBe(startedMs);
    expect(served.hits()).toBe(1);
  });
});

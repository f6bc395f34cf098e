import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/client/create-client.js';
import { ServiceError } from '../../../src/errors.js';
import { type HttpStubServer, jsonReply, startHttpStubServer } from '../../helpers/http-stub-server.js';
import { errorObject, JOB_ID } from './envelopes.js';

const API_KEY = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';

let server: HttpStubServer;
beforeAll(async () => {
  server = await startHttpStubServer();
});
afterAll(() => server.close());

function logSink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}

function client(extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    retries: 0,
    ...extra,
  });
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('client error mapping', () => {
  const cases = [
    {
      status: 400,
      code: 'VALIDATION_BAD_REQUEST',
      category: 'VALIDATION',
      detail: ['page_size: must be 1 to 250'],
    },
    { status: 401, code: 'AUTH_MISSING_API_KEY', category: 'AUTH', detail: undefined },
    { status: 402, code: 'QUOTA_ACCOUNT_OVER_QUOTA', category: 'QUOTA', detail: 'balance is 0.00 USD' },
    { status: 403, code: 'AUTH_BAD_API_KEY', category: 'AUTH', detail: undefined },
    { status: 404, code: 'NOT_FOUND_JOB_NOT_FOUND', category: 'NOT_FOUND', detail: 'no such job' },
    { status: 429, code: 'RATE_LIMIT_RATE_LIMIT_EXCEEDED', category: 'RATE_LIMIT', detail: undefined },
    { status: 500, code: 'INTERNAL_UNCLASSIFIED_ERROR', category: 'INTERNAL', detail: ['a', 'b'] },
  ] as const;

  for (const c of cases) {
    it(`${c.status} ${c.code} becomes a ServiceError with status, code, category and detail`, async () => {
      const message =
        c.status === 429 ? 'Too many requests. Try again after 17 seconds' : `failed with ${c.code}`;
      server.setHandler(() =>
        jsonReply(
          c.status,
          errorObject(c.code, c.category, message, c.detail as string | string[] | undefined),
        ),
      );
      const error = await failure(client().jobChange.find(JOB_ID));
      expect(error.status).toBe(c.status);
      expect(error.code).toBe(c.code);
      expect(error.category).toBe(c.category);
      expect(error.message).toBe(message);
      expect(error.detail).toEqual(c.detail);
      expect(error.retryAfterSeconds).toBe(c.status === 429 ? 17 : undefined);
    });
  }

  it('a detail beyond the limits is clipped, keeping the code', async () => {
    const detail = Array.from({ length: 12 }, (_, i) => `${i}`.padEnd(1200, 'x'));
    server.setHandler(() =>
      jsonReply(400, errorObject('VALIDATION_BAD_REQUEST', 'VALIDATION', 'bad', detail)),
    );
    const error = await failure(client().jobChange.find(JOB_ID));
    expect(error.code).toBe('VALIDATION_BAD_REQUEST');
    expect(error.detail).toHaveLength(10);
    expect((error.detail as string[])[0]).toHaveLength(1000);
  });

  it('Retry-After header wins over the seconds in the message', async () => {
    server.setHandler(() =>
      jsonReply(
        429,
        errorObject(
          'RATE_LIMIT_RATE_LIMIT_EXCEEDED',
          'RATE_LIMIT',
          'Too many requests. Try again after 30 seconds',
        ),
        { 'retry-after': '4' },
      ),
    );
    const error = await failure(client().jobChange.find(JOB_ID));
    expect(error.retryAfterSeconds).toBe(4);
  });

  it('a non-JSON 5xx body becomes INTERNAL_UNCLASSIFIED_ERROR, a non-conforming 4xx RESPONSE_MALFORMED', async () => {
    server.setHandler(() => ({
      status: 502,
      body: '<html>Bad Gateway</html>',
      headers: { 'content-type': 'text/html' },
    }));
    const gateway = await failure(client().jobChange.find(JOB_ID));
    expect([gateway.status, gateway.code, gateway.category]).toEqual([
      502,
      'INTERNAL_UNCLASSIFIED_ERROR',
      'INTERNAL',
    ]);
    expect(gateway.message).toContain('Bad Gateway');

    server.setHandler(() => jsonReply(400, { message: 'no code here' }));
    const malformed = await failure(client().jobChange.find(JOB_ID));
    expect([malformed.status, malformed.code, malformed.category]).toEqual([
      400,
      'RESPONSE_MALFORMED',
      undefined,
    ]);
  });

  it('an error object whose code this version does not list keeps its category and names the code', async () => {
    server.setHandler(() =>
      jsonReply(400, errorObject('VALIDATION_SOMETHING_NEW', 'VALIDATION', 'new rule')),
    );
    const error = await failure(client().jobChange.find(JOB_ID));
    expect([error.code, error.category]).toEqual(['RESPONSE_MALFORMED', 'VALIDATION']);
    expect(error.message).toBe('VALIDATION_SOMETHING_NEW: new rule');
  });

  it('a 2xx that is not a job envelope is RESPONSE_MALFORMED', async () => {
    server.setHandler(() => ({ status: 200, body: '{"status":"SUCCEEDED"' }));
    expect((await failure(client().jobChange.find(JOB_ID))).code).toBe('RESPONSE_MALFORMED');
    server.setHandler(() => jsonReply(200, { hello: 'world' }));
    expect((await failure(client().jobChange.find(JOB_ID))).code).toBe('RESPONSE_MALFORMED');
  });

  it('a redirect is not followed (the key would travel with it) and is not retried', async () => {
    server.setHandler(() => ({ status: 302, headers: { location: 'http://127.0.0.1:9/elsewhere' } }));
    const before = server.requests.length;
    const error = await failure(client({ retries: 3 }).jobChange.find(JOB_ID));
    expect([error.status, error.code]).toEqual([302, 'RESPONSE_MALFORMED']);
    expect(server.requests.length - before).toBe(1);
  });

  it('never lets the API key into an error message, its detail or a log line', async () => {
    const { lines, logger } = logSink();
    server.setHandler(() =>
      jsonReply(
        403,
        errorObject('AUTH_BAD_API_KEY', 'AUTH', `key ${API_KEY} is not valid`, [`got ${API_KEY}`]),
      ),
    );
    const error = await failure(client({ logger }).jobChange.find(JOB_ID));
    expect(error.message).toBe('key [redacted] is not valid');
    expect(error.detail).toEqual(['got [redacted]']);
    server.setHandler(() => ({ status: 500, body: `oops ${API_KEY}` }));
    const other = await failure(client({ logger, retries: 1 }).jobChange.find(JOB_ID));
    expect(other.message).not.toContain(API_KEY);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join('\n')).not.toContain(API_KEY);
    // The key did travel where it belongs.
    expect(server.requests.at(-1)?.headers['x-api-key']).toBe(API_KEY);
  });
});

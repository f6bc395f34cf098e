import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ClientOptions, createClient } from '../../../src/client/create-client.js';
import { ServiceError, ValidationError } from '../../../src/errors.js';
import { type HttpStubServer, jsonReply, startHttpStubServer } from '../../helpers/http-stub-server.js';
import { CONTEXT_ID, errorObject, JOB_ID, jobChangeEnvelope, ODD_ENVELOPE_TEXT, USAGE } from './envelopes.js';
import { drive, retryWatch, useFakeClock } from './fake-clock.js';

const API_KEY = 'c0ffee00-1111-4222-8333-444455556666';
const MASTER_ID = 'aaaaaaaa-1111-4222-8333-444455556666';

let server: HttpStubServer;
beforeAll(async () => {
  server = await startHttpStubServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(() => jsonReply(200, jobChangeEnvelope()));
});

function client(extra: Partial<ClientOptions> = {}) {
  return createClient({ baseUrl: server.url, apiKey: API_KEY, ...extra });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

const searchEnvelope = {
  status: 'SUCCEEDED',
  start_date: '2026-03-04T10:11:12.123456+00:00',
  stop_date: '2026-03-04T10:11:14.000000+00:00',
  input: {
    task: {
      domain: 'acme.com',
      page_number: 1,
      page_size: 10,
      custom_fields: {},
      job_id: JOB_ID,
      context_id: CONTEXT_ID,
    },
  },
  output: { persons: [], usage: USAGE },
};

describe('client resources', () => {
  it('finders GET their path with job_id and x-api-key, and return the exact body', async () => {
    server.setHandler(() => ({
      status: 200,
      body: ODD_ENVELOPE_TEXT,
      headers: { 'content-type': 'application/json' },
    }));
    const result = await client().jobChange.find(JOB_ID);
    const [request] = server.requests;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/v1/job/change');
    expect(request?.query.get('job_id')).toBe(JOB_ID);
    expect(request?.headers['x-api-key']).toBe(API_KEY);
    expect(result.raw).toBe(ODD_ENVELOPE_TEXT);
    expect(Buffer.from(result.bytes).equals(Buffer.from(ODD_ENVELOPE_TEXT, 'utf8'))).toBe(true);
    expect(result.job.status).toBe('SUCCEEDED');
    expect(result.job.start_date).toBe('2026-03-04T10:11:12.123456+00:00');
    const output = result.job.output as { usage: { persons_count: unknown } };
    expect(output.usage.persons_count).toBe(9007199254740993n);
    const task = result.job.input.task as Record<string, unknown>;
    expect(task.contact_linkedin).toBe('jane-\u{1F600}');

    await client().searchContact.find(JOB_ID);
    expect(server.requests[1]?.path).toBe('/v1/search/contact');
    expect(server.requests[1]?.query.get('job_id')).toBe(JOB_ID);
  });

  it('reports a body with a byte order mark as RESPONSE_MALFORMED instead of altering it', async () => {
    const body = `\uFEFF${JSON.stringify(jobChangeEnvelope())}`;
    server.setHandler(() => ({ status: 200, body }));
    const error = await rejection(client().jobChange.find(JOB_ID));
    // JSON.parse refuses a BOM; the body is still reported, never silently altered.
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('RESPONSE_MALFORMED');
  });

  it('refuses a job_id that is not a UUID before any request', async () => {
    for (const bad of ['nope', `${JOB_ID}x`, JOB_ID.replaceAll('-', ''), ' ']) {
      const error = await rejection(client().jobChange.find(bad));
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe('VALIDATION_BAD_JOB_ID');
    }
    const missing = await rejection(client().searchContact.find(''));
    expect((missing as ValidationError).code).toBe('VALIDATION_MISSING_JOB_ID_PARAMETER');
    expect(server.requests).toHaveLength(0);
  });

  it('validates launcher requests locally, failing with the code the service would answer, sending nothing', async () => {
    const c = client();
    const cases: [() => Promise<unknown>, string][] = [
      [() => c.companyReveal({ ip: '256.1.1.1' }), 'VALIDATION_BAD_REQUEST'],
      [() => c.companyReveal(undefined as never), 'VALIDATION_MISSING_BODY'],
      [() => c.searchContact.launch({ domain: 'acme.com', page_size: 251 }), 'VALIDATION_BAD_REQUEST'],
      [
        () => c.searchContact.launch({ domain: 'acme.com', contact_linkedin: 'jane-doe' }),
        'VALIDATION_BAD_REQUEST',
      ],
      [
        () =>
          c.searchContact.launch({
            company_industries: ['Software Development'],
            experience_start_date: '2025-01-01',
          }),
        'VALIDATION_MISSING_TITLE_FILTERS',
      ],
      [
        () =>
          c.searchContact.launch({
            domain: 'acme.com',
            title_filters: [{ name: 'x', filter: '(CEO' }],
          }),
        'VALIDATION_BAD_TITLE_FILTER_MISSING_RIGHT_PARENTHESIS',
      ],
      [() => c.jobChange.launch({ professional_email: 'not-an-email' }), 'VALIDATION_BAD_EMAIL_INVALID'],
    ];
    for (const [call, code] of cases) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe(code);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('launchers POST the request as given to their (configurable) paths', async () => {
    server.setHandler((request) =>
      request.path === '/custom/search'
        ? jsonReply(200, searchEnvelope)
        : jsonReply(200, jobChangeEnvelope()),
    );
    const c = client({
      paths: { searchContactLaunch: '/custom/search', jobChangeLaunch: '/custom/job-change' },
    });
    const search = { domain: 'https://www.acme.com/about', page_size: 10, crm_note: 'extra field kept' };
    const launched = await c.searchContact.launch(search as never);
    expect(launched.job.status).toBe('SUCCEEDED');
    await c.jobChange.launch({ contact_linkedin: 'https://www.linkedin.com/in/jane-doe' });
    await c.companyReveal({ ip: '8.8.8.8', custom_fields: { crm_id: 'A-1' } });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /custom/search',
      'POST /custom/job-change',
      'POST /v1/company-reveal',
    ]);
    expect(JSON.parse(server.requests[0]!.body)).toEqual(search);
    expect(server.requests[2]?.headers['content-type']).toBe('application/json');
    expect(server.requests.every((r) => r.headers['x-api-key'] === API_KEY)).toBe(true);
  });

  it('jwks() sends no x-api-key, is not paced, and checks the key set', async () => {
    const jwks = {
      keys: [
        {
          kty: 'OKP',
          crv: 'Ed25519',
          kid: 'k1',
          use: 'sig',
          alg: 'EdDSA',
          x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
        },
      ],
    };
    server.setHandler(() => jsonReply(200, jwks));
    const c = client();
    expect(await c.jwks()).toEqual(jwks);
    expect(server.requests[0]?.path).toBe('/.well-known/jwks.json');
    expect(server.requests[0]?.headers['x-api-key']).toBeUndefined();
    expect(c.pacing.requestsSent).toBe(0);
    server.setHandler(() => jsonReply(200, { keys: [] }));
    expect(((await rejection(c.jwks())) as ServiceError).code).toBe('RESPONSE_MALFORMED');
  });

  it('a base URL with a path prefix keeps it', async () => {
    await client({ baseUrl: `${server.url}/proxy/` }).jobChange.find(JOB_ID);
    expect(server.requests[0]?.path).toBe('/proxy/v1/job/change');
  });

  it('refuses malformed options with TypeError', () => {
    expect(() => createClient({ baseUrl: 'not a url', apiKey: 'k' })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: 'ftp://x', apiKey: 'k' })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: server.url, apiKey: '' })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: server.url, apiKey: 'k', retries: -1 })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 0 })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: server.url, apiKey: 'k', paths: { jobChangeLaunch: 'x' } })).toThrow(
      TypeError,
    );
    expect(() =>
      createClient({ baseUrl: server.url, apiKey: 'k', rateLimit: { perInterval: 0, intervalSeconds: 60 } }),
    ).toThrow(TypeError);
  });
});

describe('client rate-limit learning', () => {
  const keyList = (own: { per_interval: number; interval_seconds: number } | undefined) => ({
    api_keys: [
      {
        api_key: MASTER_ID,
        active: true,
        notes: 'master',
        master: true,
        per_interval: 40,
        interval_seconds: 60,
      },
      ...(own ? [{ api_key: API_KEY, active: true, notes: 'sync', master: false, ...own }] : []),
    ],
  });

  it("adopts the current key's rate when it is stricter than the account's", async () => {
    server.setHandler(() => jsonReply(200, keyList({ per_interval: 20, interval_seconds: 60 })));
    const c = client();
    const learned = await c.learnRateLimit();
    expect(server.requests[0]?.path).toBe('/v1/api-keys');
    expect(learned.source).toBe('current-key');
    expect(learned.limits).toEqual([{ perInterval: 20, intervalSeconds: 60 }]);
    expect(c.pacing.limits).toEqual([{ perInterval: 20, intervalSeconds: 60 }]);
  });

  it("keeps the account's 50/60 when the key allows more, and obeys both when neither implies the other", async () => {
    server.setHandler(() => jsonReply(200, keyList({ per_interval: 500, interval_seconds: 60 })));
    const c = client();
    expect((await c.learnRateLimit()).limits).toEqual([{ perInterval: 50, intervalSeconds: 60 }]);
    server.setHandler(() => jsonReply(200, keyList({ per_interval: 80, interval_seconds: 300 })));
    expect((await c.learnRateLimit()).limits).toEqual([
      { perInterval: 50, intervalSeconds: 60 },
      { perInterval: 80, intervalSeconds: 300 },
    ]);
  });

  it('falls back to the master record when the list names the key by another id', async () => {
    server.setHandler(() => jsonReply(200, keyList(undefined)));
    const learned = await client().learnRateLimit();
    expect(learned.source).toBe('master-key');
    expect(learned.limits).toEqual([{ perInterval: 40, intervalSeconds: 60 }]);
  });

  it('leaves pacing unchanged for a key that may not list keys, and rethrows anything else', async () => {
    server.setHandler(() =>
      jsonReply(403, errorObject('AUTH_NEED_MASTER_API_KEY', 'AUTH', 'master key required')),
    );
    const c = client();
    const learned = await c.learnRateLimit();
    expect(learned).toMatchObject({ source: 'unchanged', reason: 'AUTH_NEED_MASTER_API_KEY' });
    expect(c.pacing.limits).toEqual([{ perInterval: 50, intervalSeconds: 60 }]);
    server.setHandler(() => jsonReply(403, errorObject('AUTH_BAD_API_KEY', 'AUTH', 'bad key')));
    expect(((await rejection(c.learnRateLimit())) as ServiceError).code).toBe('AUTH_BAD_API_KEY');
  });

  it('learns from X-RateLimit-* headers and setRateLimit replaces everything', async () => {
    server.setHandler((_request, hit) =>
      hit % 2 === 1
        ? jsonReply(
            429,
            errorObject(
              'RATE_LIMIT_RATE_LIMIT_EXCEEDED',
              'RATE_LIMIT',
              'Too many requests. Try again after 1 seconds',
            ),
            {
              'x-ratelimit-limit': '30',
              'x-ratelimit-interval': '60',
              'x-ratelimit-remaining': '0',
              'retry-after': '1',
            },
          )
        : jsonReply(200, jobChangeEnvelope()),
    );
    useFakeClock();
    const watch = retryWatch();
    const c = client({ logger: watch.logger });
    try {
      // The 429's Retry-After (1 s) passes on the fake clock.
      await drive(c.jobChange.find(JOB_ID), watch.delays);
    } finally {
      vi.useRealTimers();
    }
    expect(watch.delays).toEqual([1000]);
    expect(c.pacing.limits).toEqual([{ perInterval: 30, intervalSeconds: 60 }]);
    expect(c.pacing.rateLimitedResponses).toBe(1);
    c.setRateLimit({ perInterval: 5, intervalSeconds: 1 });
    expect(c.pacing.limits).toEqual([{ perInterval: 5, intervalSeconds: 1 }]);
  });
});

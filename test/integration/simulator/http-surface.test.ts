/**
 * The simulator's HTTP surface, over real sockets: validation through every endpoint, error objects,
 * routing, authentication, and jobs re-fetched byte for byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEnvelopeForKind, ISO_DATE_TIME_PATTERN } from '../../../src/contract/envelope.js';
import { parseErrorObject } from '../../../src/contract/error-object.js';
import { uuidSchema } from '../../../src/contract/formats.js';
import { parseTitleFilter } from '../../../src/contract/title-filter.js';
import type { HooksyncError } from '../../../src/errors.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { callSim, jobIdOf } from './helpers/sim-http.js';

const SUB_KEY = 'sub-key-one';
let sim: Simulator;

beforeAll(async () => {
  sim = await createSimulator({ seed: 'surface', subKeys: [{ apiKey: SUB_KEY }] });
});
afterAll(async () => {
  await sim.close();
});

const call = (method: string, path: string, body?: unknown, key: string | null = sim.apiKey) =>
  callSim(sim.url, method, path, { key, body });

function codeOfTitleFilter(filter: string): string {
  try {
    parseTitleFilter(filter);
  } catch (error) {
    return (error as HooksyncError).code;
  }
  throw new Error(`${filter} parsed`);
}

const UNKNOWN_JOB = '0b5e3c4e-8a63-4d3c-9c52-2f0d5a4b1c11';
const COMPANY_SET = { company_industries: ['Computer Software'], experience_start_date: '2024-01-01' };

describe('validation through the HTTP surface', () => {
  const cases: [name: string, method: string, path: string, body: unknown, status: number, code: string][] = [
    ['missing body', 'POST', '/v1/company-reveal', undefined, 400, 'VALIDATION_MISSING_BODY'],
    ['blank body', 'POST', '/v1/search/contact', '  \n', 400, 'VALIDATION_MISSING_BODY'],
    ['null body', 'POST', '/v1/job/change', 'null', 400, 'VALIDATION_MISSING_BODY'],
    ['malformed JSON', 'POST', '/v1/company-reveal', '{"ip": "1.2.3.4"', 400, 'VALIDATION_BAD_REQUEST'],
    ['a JSON array', 'POST', '/v1/company-reveal', '[]', 400, 'VALIDATION_BAD_REQUEST'],
    ['bad ip', 'POST', '/v1/company-reveal', { ip: '256.1.1.1' }, 400, 'VALIDATION_BAD_REQUEST'],
    ['missing ip', 'POST', '/v1/company-reveal', { custom_fields: {} }, 400, 'VALIDATION_BAD_REQUEST'],
    [
      'custom_fields ""',
      'POST',
      '/v1/company-reveal',
      { ip: '1.2.3.4', custom_fields: '' },
      400,
      'VALIDATION_BAD_REQUEST',
    ],
    [
      'custom_fields []',
      'POST',
      '/v1/company-reveal',
      { ip: '1.2.3.4', custom_fields: [] },
      400,
      'VALIDATION_BAD_REQUEST',
    ],
    [
      'custom_fields bad key',
      'POST',
      '/v1/company-reveal',
      { ip: '1.2.3.4', custom_fields: { 'a b': 1 } },
      400,
      'VALIDATION_BAD_REQUEST',
    ],
    [
      'webhook_url too long',
      'POST',
      '/v1/company-reveal',
      { ip: '1.2.3.4', webhook_url: `https://x.test/${'a'.repeat(2100)}` },
      400,
      'VALIDATION_BAD_REQUEST',
    ],
    ['search: no mode', 'POST', '/v1/search/contact', { page_size: 5 }, 400, 'VALIDATION_BAD_REQUEST'],
    [
      'search: two modes',
      'POST',
      '/v1/search/contact',
      { contact_linkedin: 'jane-doe', domain: 'acme.com' },
      400,
      'VALIDATION_BAD_REQUEST',
    ],
    [
      'search: company set without titles',
      'POST',
      '/v1/search/contact',
      COMPANY_SET,
      400,
      'VALIDATION_MISSING_TITLE_FILTERS',
    ],
    [
      'search: bad title filter',
      'POST',
      '/v1/search/contact',
      { ...COMPANY_SET, title_filters: [{ name: 'x', filter: 'CEO AND' }] },
      400,
      codeOfTitleFilter('CEO AND'),
    ],
    [
      'search: unbalanced title filter',
      'POST',
      '/v1/search/contact',
      { ...COMPANY_SET, title_filters: [{ name: 'x', filter: '(CEO OR CTO' }] },
      400,
      codeOfTitleFilter('(CEO OR CTO'),
    ],
    [
      'search: page_size 251',
      'POST',
      '/v1/search/contact',
      { domain: 'acme.com', page_size: 251 },
      400,
      'VALIDATION_BAD_REQUEST',
    ],
    [
      'search: page_number 0',
      'POST',
      '/v1/search/contact',
      { domain: 'acme.com', page_number: 0 },
      400,
      'VALIDATION_BAD_REQUEST',
    ],
    [
      'search: bad domain',
      'POST',
      '/v1/search/contact',
      { domain: 'not a domain' },
      400,
      'VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS',
    ],
    [
      'job change: nobody',
      'POST',
      '/v1/job/change',
      { company_domain: 'acme.com' },
      400,
      'VALIDATION_BAD_REQUEST',
    ],
    [
      'job change: bad email',
      'POST',
      '/v1/job/change',
      { professional_email: 'nope' },
      400,
      'VALIDATION_BAD_EMAIL_INVALID',
    ],
    [
      'finder: missing job_id',
      'GET',
      '/v1/search/contact',
      undefined,
      400,
      'VALIDATION_MISSING_JOB_ID_PARAMETER',
    ],
    [
      'finder: empty job_id',
      'GET',
      '/v1/job/change?job_id=',
      undefined,
      400,
      'VALIDATION_MISSING_JOB_ID_PARAMETER',
    ],
    ['finder: bad job_id', 'GET', '/v1/job/change?job_id=123', undefined, 400, 'VALIDATION_BAD_JOB_ID'],
    [
      'finder: two job_ids',
      'GET',
      `/v1/job/change?job_id=${UNKNOWN_JOB}&job_id=${UNKNOWN_JOB}`,
      undefined,
      400,
      'VALIDATION_BAD_JOB_ID',
    ],
    [
      'finder: unknown job',
      'GET',
      `/v1/search/contact?job_id=${UNKNOWN_JOB}`,
      undefined,
      404,
      'NOT_FOUND_JOB_NOT_FOUND',
    ],
    ['wrong path', 'GET', '/v1/nothing', undefined, 404, 'ROUTING_INVALID_PATH_OR_METHOD'],
    ['unversioned path', 'POST', '/company-reveal', { ip: '1.2.3.4' }, 404, 'ROUTING_INVALID_PATH_OR_METHOD'],
    [
      'trailing slash',
      'POST',
      '/v1/company-reveal/',
      { ip: '1.2.3.4' },
      404,
      'ROUTING_INVALID_PATH_OR_METHOD',
    ],
    ['wrong method GET', 'GET', '/v1/company-reveal', undefined, 404, 'ROUTING_INVALID_PATH_OR_METHOD'],
    ['wrong method DELETE', 'DELETE', '/v1/job/change', undefined, 404, 'ROUTING_INVALID_PATH_OR_METHOD'],
    [
      'wrong method OPTIONS',
      'OPTIONS',
      '/v1/search/contact',
      undefined,
      404,
      'ROUTING_INVALID_PATH_OR_METHOD',
    ],
    [
      'wrong method POST on JWKS',
      'POST',
      '/.well-known/jwks.json',
      {},
      404,
      'ROUTING_INVALID_PATH_OR_METHOD',
    ],
  ];

  it.each(cases)('%s → %i %s', async (_name, method, path, body, status, code) => {
    const answer = await call(method, path, body);
    expect(answer.status).toBe(status);
    const error = parseErrorObject(answer.json);
    expect(error, answer.text).toBeDefined();
    expect(error?.code).toBe(code);
    expect(error?.status).toBe('error');
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('refuses a body over the size limit with VALIDATION_BAD_REQUEST', async () => {
    const answer = await call('POST', '/v1/company-reveal', {
      ip: '1.2.3.4',
      custom_fields: { a: 'x'.repeat(1_100_000) },
    });
    expect(answer.status).toBe(400);
    expect(parseErrorObject(answer.json)?.code).toBe('VALIDATION_BAD_REQUEST');
  });

  it('lists each broken rule in the error detail', async () => {
    const answer = await call('POST', '/v1/search/contact', {
      domain: 'acme.com',
      page_size: 251,
      page_number: 0,
    });
    const error = parseErrorObject(answer.json);
    expect(Array.isArray(error?.error)).toBe(true);
    expect((error?.error ?? []).length).toBeGreaterThanOrEqual(2);
  });

  it('refuses a job of another kind on a finder', async () => {
    const search = await call('POST', '/v1/search/contact', { domain: 'acme.com', page_size: 1 });
    const answer = await call('GET', `/v1/job/change?job_id=${jobIdOf(search)}`);
    expect(answer.status).toBe(404);
    expect(parseErrorObject(answer.json)?.code).toBe('NOT_FOUND_JOB_NOT_FOUND');
  });
});

describe('authentication', () => {
  const endpoints: [string, string, unknown][] = [
    ['POST', '/v1/company-reveal', { ip: '1.2.3.4' }],
    ['POST', '/v1/search/contact', { domain: 'acme.com' }],
    ['GET', `/v1/job/change?job_id=${UNKNOWN_JOB}`, undefined],
    ['GET', '/v1/api-keys', undefined],
    ['GET', '/_sim/jobs', undefined],
  ];

  it.each(endpoints)(
    '%s %s: no key → 401 AUTH_MISSING_API_KEY, unknown key → 403 AUTH_BAD_API_KEY',
    async (method, path, body) => {
      const missing = await call(method, path, body, null);
      expect(missing.status).toBe(401);
      expect(parseErrorObject(missing.json)).toMatchObject({
        code: 'AUTH_MISSING_API_KEY',
        category: 'AUTH',
      });
      const bad = await call(method, path, body, 'not-a-key');
      expect(bad.status).toBe(403);
      expect(parseErrorObject(bad.json)).toMatchObject({ code: 'AUTH_BAD_API_KEY', category: 'AUTH' });
    },
  );

  it('the key list and the controls need the master key', async () => {
    for (const path of ['/v1/api-keys', '/_sim/jobs', '/_sim/deliveries']) {
      const answer = await call('GET', path, undefined, SUB_KEY);
      expect(answer.status).toBe(403);
      expect(parseErrorObject(answer.json)?.code).toBe('AUTH_NEED_MASTER_API_KEY');
    }
    const rotate = await call('POST', '/_sim/rotate-keys', undefined, SUB_KEY);
    expect(parseErrorObject(rotate.json)?.code).toBe('AUTH_NEED_MASTER_API_KEY');
  });

  it('a sub-key can launch and find jobs', async () => {
    const launch = await call('POST', '/v1/job/change', { contact_linkedin: 'jane-doe' }, SUB_KEY);
    expect(launch.status).toBe(200);
    expect((await call('GET', `/v1/job/change?job_id=${jobIdOf(launch)}`, undefined, SUB_KEY)).status).toBe(
      200,
    );
  });

  it('echoes in a Job Change task exactly the fields the interface lists (not webhook_url)', async () => {
    const launch = await call('POST', '/v1/job/change', {
      contact_full_name: 'Kofi Doe',
      contact_linkedin: 'https://www.linkedin.com/in/kofi-doe',
      webhook_url: 'http://127.0.0.1:9/webhooks',
      custom_fields: { crm_id: '42' },
      extra: 'not a task field',
    });
    expect(launch.status).toBe(200);
    const task = (launch.json as { input: { task: Record<string, unknown> } }).input.task;
    expect(Object.keys(task).sort()).toEqual(
      [
        'company_domain',
        'company_linkedin',
        'professional_email',
        'personal_email',
        'contact_linkedin',
        'contact_full_name',
        'custom_fields',
        'job_id',
        'context_id',
      ].sort(),
    );
    expect(task).toMatchObject({
      contact_full_name: 'Kofi Doe',
      company_domain: null,
      custom_fields: { crm_id: '42' },
    });
  });

  it('lists the API key records to the master key', async () => {
    const answer = await call('GET', '/v1/api-keys');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      api_keys: [
        {
          api_key: sim.apiKey,
          active: true,
          notes: 'master key',
          master: true,
          per_interval: 50,
          interval_seconds: 60,
        },
        {
          api_key: SUB_KEY,
          active: true,
          notes: 'sub-key 1',
          master: false,
          per_interval: 50,
          interval_seconds: 60,
        },
      ],
    });
    expect(uuidSchema.safeParse(sim.apiKey).success).toBe(true);
  });

  it('serves the key set without a key', async () => {
    const answer = await call('GET', '/.well-known/jwks.json', undefined, null);
    expect(answer.status).toBe(200);
    const { keys } = answer.json as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
    expect(keys[0]).not.toHaveProperty('d');
    expect(sim.jwksUrl).toBe(`${sim.url}/.well-known/jwks.json`);
  });
});

describe('jobs', () => {
  const launches: [
    kind: 'company_reveal' | 'search_contact' | 'job_change',
    path: string,
    body: Record<string, unknown>,
  ][] = [
    [
      'company_reveal',
      '/v1/company-reveal',
      { ip: '23.45.67.89', custom_fields: { crm_id: 'A-1', score: 7, hot: true } },
    ],
    [
      'search_contact',
      '/v1/search/contact',
      { domain: 'https://www.acme.com/about', page_size: 3, custom_fields: { n: 1 } },
    ],
    [
      'job_change',
      '/v1/job/change',
      { contact_linkedin: 'https://www.linkedin.com/in/jane-doe', custom_fields: {} },
    ],
  ];

  it.each(launches)(
    '%s: an envelope that fits the contract, with echo, ids, dates and usage',
    async (kind, path, body) => {
      const before = sim.balanceUsd();
      const answer = await call('POST', path, body);
      expect(answer.status, answer.text).toBe(200);
      const envelope = answer.json as {
        status: string;
        start_date: string;
        stop_date: string;
        input: { task: Record<string, unknown> };
        output: {
          usage: {
            total_usd: number;
            balance_remaining_usd: number;
            persons_usd: number;
            phones_usd: number;
            companies_usd: number;
          };
        };
      };
      expect(checkEnvelopeForKind(envelope, kind)).toEqual({ ok: true });
      expect(envelope.status).toBe('SUCCEEDED');
      for (const date of [envelope.start_date, envelope.stop_date]) {
        expect(date).toMatch(ISO_DATE_TIME_PATTERN);
        expect(date).toMatch(/\.\d{6}\+00:00$/);
      }
      expect(envelope.stop_date >= envelope.start_date).toBe(true);
      const { task } = envelope.input;
      expect(task.custom_fields).toEqual(body.custom_fields);
      expect(uuidSchema.safeParse(task.job_id).success).toBe(true);
      expect(uuidSchema.safeParse(task.context_id).success).toBe(true);
      expect(task.job_id).not.toBe(task.context_id);
      const { usage } = envelope.output;
      expect(usage.total_usd).toBeCloseTo(usage.persons_usd + usage.phones_usd + usage.companies_usd, 9);
      expect(usage.balance_remaining_usd).toBeCloseTo(before - usage.total_usd, 9);
      expect(sim.balanceUsd()).toBe(usage.balance_remaining_usd);
    },
  );

  it('stores custom_fields {} when omitted and echoes the normalised request', async () => {
    const answer = await call('POST', '/v1/search/contact', { domain: 'https://www.acme.com/about' });
    const { task } = (answer.json as { input: { task: Record<string, unknown> } }).input;
    expect(task).toMatchObject({
      domain: 'acme.com',
      page_number: 1,
      page_size: 10,
      custom_fields: {},
      webhook_url: null,
    });
  });

  it('the finders return the launcher text byte for byte', async () => {
    for (const [path, body] of [
      ['/v1/search/contact', { domain: 'acme.com', page_size: 25 }],
      ['/v1/job/change', { professional_email: 'jane@acme.com', contact_full_name: 'Jane Doe' }],
    ] as const) {
      const launch = await call('POST', path, body);
      const found = await call('GET', `${path}?job_id=${jobIdOf(launch)}`);
      expect(found.status).toBe(200);
      expect(Buffer.from(found.text)).toEqual(Buffer.from(launch.text));
      expect(found.headers.get('content-length')).toBe(launch.headers.get('content-length'));
    }
  });

  it('pages are stable and deterministic by seed', async () => {
    const other = await createSimulator({ seed: 'surface' });
    const different = await createSimulator({ seed: 'another seed' });
    try {
      const request = {
        company_industries: ['Computer Software'],
        experience_start_date: '2000-01-01',
        title_filters: [{ name: 'any', filter: 'Engineer OR Manager OR Director' }],
        page_size: 5,
      };
      const page = async (s: Simulator, pageNumber: number) => {
        const answer = await callSim(s.url, 'POST', '/v1/search/contact', {
          key: s.apiKey,
          body: { ...request, page_number: pageNumber },
        });
        expect(answer.status, answer.text).toBe(200);
        return (answer.json as { output: { persons: { id: string }[] } }).output.persons;
      };
      const first = await page(sim, 1);
      expect(first.length).toBe(5);
      expect(await page(sim, 1)).toEqual(first);
      expect(await page(other, 1)).toEqual(first);
      const second = await page(sim, 2);
      expect(second.map((p) => p.id).filter((id) => first.some((p) => p.id === id))).toEqual([]);
      expect(await page(different, 1)).not.toEqual(first);
    } finally {
      await other.close();
      await different.close();
    }
  });

  it('lists jobs on /_sim/jobs', async () => {
    const launch = await call('POST', '/v1/company-reveal', { ip: '1.1.1.1' });
    const answer = await call('GET', '/_sim/jobs');
    const { jobs } = answer.json as { jobs: { job_id: string; kind: string; status: string }[] };
    expect(jobs).toContainEqual({ job_id: jobIdOf(launch), kind: 'company_reveal', status: 'SUCCEEDED' });
    expect(sim.jobs()).toEqual(jobs);
    expect(sim.jobText(jobIdOf(launch))).toBe(launch.text);
  });
});

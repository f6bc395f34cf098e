import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isFieldHash,
  type PipedriveStandIn,
  type PipedriveStandInOptions,
  startPipedriveStandIn,
  TOKEN_COSTS,
} from '../../helpers/pipedrive/stand-in.js';

let standIn: PipedriveStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function start(options: PipedriveStandInOptions = {}) {
  standIn = await startPipedriveStandIn(options);
  return standIn;
}

async function call(pd: PipedriveStandIn, method: string, path: string, body?: unknown, token = pd.token) {
  const response = await fetch(`${pd.url}${path}`, {
    method,
    headers: { 'x-api-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: answers are read by test assertions
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

describe('Pipedrive stand-in', () => {
  it('refuses a wrong token as the gateway does', async () => {
    const pd = await start();
    const answer = await call(pd, 'GET', '/api/v2/persons', undefined, 'wrong');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-401-by-gw')).toBe('true');
    expect(answer.json).toMatchObject({ success: false, error: 'unauthorized access', errorCode: 401 });
  });

  it('lists fields with 40-character hash keys for custom ones, and creates fields', async () => {
    const pd = await start();
    const created = await call(pd, 'POST', '/v1/organizationFields', {
      name: 'Domain',
      field_type: 'varchar',
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('x-daily-ratelimit-token-remaining')).toBe(String(30_000 - 10));
    const fields = await call(pd, 'GET', '/api/v1/organizationFields');
    const domain = fields.json.data.find((field: { name: string }) => field.name === 'Domain');
    expect(isFieldHash(domain.key)).toBe(true);
    expect(fields.json.data.find((field: { name: string }) => field.name === 'Name').key).toBe('name');
    expect(pd.spent()).toBe(TOKEN_COSTS.createField + TOKEN_COSTS.fields);
  });

  it('creates, reads, updates and lists v2 persons linked to organizations, strict on types', async () => {
    const pd = await start();
    const linkedin = pd.store.addField('persons', 'LinkedIn URL', 'varchar');
    const org = await call(pd, 'POST', '/api/v2/organizations', { name: 'Acme' });
    expect(org.json).toMatchObject({ success: true, data: { id: 1, name: 'Acme' } });
    const person = await call(pd, 'POST', '/api/v2/persons', {
      name: 'Ada L',
      emails: [{ value: 'ada@acme.com' }],
      org_id: org.json.data.id,
      custom_fields: { [linkedin.key]: 'https://www.linkedin.com/in/ada' },
    });
    expect(person.status).toBe(200);
    expect(person.json.data).toMatchObject({
      org_id: 1,
      emails: [{ value: 'ada@acme.com', primary: true, label: 'work' }],
    });
    const id = person.json.data.id;
    const got = await call(pd, 'GET', `/api/v2/persons/${id}?custom_fields=${linkedin.key}`);
    expect(got.json.data.custom_fields).toEqual({ [linkedin.key]: 'https://www.linkedin.com/in/ada' });
    const patched = await call(pd, 'PATCH', `/api/v2/persons/${id}`, { name: 'Ada Lovelace' });
    expect(patched.json.data.name).toBe('Ada Lovelace');
    expect(patched.json.data.custom_fields[linkedin.key]).toBe('https://www.linkedin.com/in/ada');
    const list = await call(pd, 'GET', '/api/v2/persons?limit=1');
    expect(list.json.additional_data.next_cursor).toBe(null);
    expect(list.json.data).toHaveLength(1);
    expect(pd.spent()).toBe(5 + 5 + 1 + 5 + 10);

    const bad = [
      await call(pd, 'POST', '/api/v2/persons', { emails: [{ value: 'x@y.z' }] }),
      await call(pd, 'PATCH', `/api/v2/persons/${id}`, { org_id: '1' }),
      await call(pd, 'PATCH', `/api/v2/persons/${id}`, { custom_fields: { ['0'.repeat(40)]: 'x' } }),
      await call(pd, 'PATCH', `/api/v2/persons/${id}`, {
        custom_fields: { [linkedin.key]: 'x'.repeat(256) },
      }),
      await call(pd, 'PATCH', `/api/v2/persons/${id}`, { email: 'old@v1.shape' }),
    ];
    for (const answer of bad) {
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ success: false, code: 'ERR_INVALID_INPUT' });
    }
    expect((await call(pd, 'GET', '/api/v2/persons/999')).json).toMatchObject({ success: false });
    expect((await call(pd, 'PATCH', '/api/v2/persons/999', { name: 'x' })).status).toBe(404);
    expect((await call(pd, 'PATCH', `/api/v2/persons/${id}`, { job_title: 'CTO' })).status).toBe(403);
  });

  it('searches with exact_match, case-insensitively, only once the index caught up', async () => {
    let now = Date.UTC(2026, 10, 26, 12);
    const pd = await start({ now: () => now, indexLagMs: 1_000 });
    const domain = pd.store.addField('organizations', 'Domain', 'varchar');
    await call(pd, 'POST', '/api/v2/organizations', {
      name: 'Acme',
      custom_fields: { [domain.key]: 'acme.com' },
    });
    await call(pd, 'POST', '/api/v2/organizations', {
      name: 'Acme EU',
      custom_fields: { [domain.key]: 'acme.com.eu' },
    });
    const path = '/api/v2/organizations/search?term=ACME.com&fields=custom_fields&exact_match=true';
    expect((await call(pd, 'GET', path)).json.data.items).toEqual([]);
    now += 1_000;
    const found = await call(pd, 'GET', path);
    expect(found.json.data.items.map((item: { item: { name: string } }) => item.item.name)).toEqual(['Acme']);
    expect(found.json.data.items[0].item.custom_fields).toEqual(['acme.com']);
    const loose = await call(pd, 'GET', '/api/v2/organizations/search?term=acme.com&fields=custom_fields');
    expect(loose.json.data.items).toHaveLength(2);
    expect((await call(pd, 'GET', '/api/v2/organizations/search?term=a')).status).toBe(400);
    expect(
      pd.calls.filter((c) => c.path.includes('/search') && c.status === 200).every((c) => c.tokens === 20),
    ).toBe(true);
  });

  it('answers a burst 429, then Cloudflare 403 HTML to a client that keeps sending', async () => {
    const now = Date.UTC(2026, 10, 26, 12);
    const pd = await start({ now: () => now, burst: 3, ignoredLimitedRequests: 2 });
    for (let i = 0; i < 3; i++) expect((await call(pd, 'GET', '/api/v2/persons')).status).toBe(200);
    const limited = await call(pd, 'GET', '/api/v2/persons');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json).toMatchObject({ success: false, errorCode: 429 });
    await call(pd, 'GET', '/api/v2/persons');
    await call(pd, 'GET', '/api/v2/persons');
    const blocked = await call(pd, 'GET', '/api/v2/persons');
    expect(blocked.status).toBe(403);
    expect(blocked.headers.get('content-type')).toContain('text/html');
    expect(blocked.text).toContain('Cloudflare');
  });

  it('limits search to its own window, and a client that waits gets through', async () => {
    let now = Date.UTC(2026, 10, 26, 12);
    const pd = await start({ now: () => now, searchBurst: 2 });
    const path = '/api/v2/persons/search?term=ab';
    expect((await call(pd, 'GET', path)).status).toBe(200);
    expect((await call(pd, 'GET', path)).status).toBe(200);
    expect((await call(pd, 'GET', path)).status).toBe(429);
    expect((await call(pd, 'GET', '/api/v2/persons')).status).toBe(200);
    now += 2_000;
    expect((await call(pd, 'GET', path)).status).toBe(200);
  });

  it('answers the daily 429 with a retry-after to midnight, and resets the next day', async () => {
    let now = Date.UTC(2026, 10, 26, 23, 0);
    const pd = await start({ now: () => now, dailyTokens: 25 });
    expect((await call(pd, 'GET', '/api/v2/persons/search?term=ab')).status).toBe(200);
    const left = await call(pd, 'POST', '/api/v2/persons', { name: 'A' });
    expect(left.headers.get('x-daily-ratelimit-token-remaining')).toBe('0');
    const over = await call(pd, 'GET', '/api/v2/persons/1');
    expect(over.status).toBe(429);
    expect(over.json).toMatchObject({ error: 'daily request budget exceeded' });
    expect(over.headers.get('retry-after')).toBe('3600');
    now += 3_600_000;
    expect((await call(pd, 'GET', '/api/v2/persons/1')).status).toBe(200);
  });

  it('holds what a model of creates and patches holds, and finds it by exact search', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant('create' as const),
              domain: fc.constantFrom('a.io', 'b.io', 'c.io'),
            }),
            fc.record({ op: fc.constant('patch' as const), at: fc.nat(5), name: fc.constantFrom('X', 'Y') }),
          ),
          { maxLength: 12 },
        ),
        async (ops) => {
          const pd = await startPipedriveStandIn({ indexLagMs: 0, burst: 1_000, searchBurst: 1_000 });
          try {
            const domain = pd.store.addField('organizations', 'Domain', 'varchar');
            const model: Array<{ id: number; name: string; domain: string }> = [];
            for (const op of ops) {
              if (op.op === 'create') {
                const answer = await call(pd, 'POST', '/api/v2/organizations', {
                  name: op.domain,
                  custom_fields: { [domain.key]: op.domain },
                });
                model.push({ id: answer.json.data.id, name: op.domain, domain: op.domain });
              } else if (model.length > 0) {
                const target = model[op.at % model.length]!;
                await call(pd, 'PATCH', `/api/v2/organizations/${target.id}`, { name: op.name });
                target.name = op.name;
              }
            }
            for (const held of model) {
              const got = await call(pd, 'GET', `/api/v2/organizations/${held.id}`);
              expect(got.json.data).toMatchObject({
                name: held.name,
                custom_fields: { [domain.key]: held.domain },
              });
            }
            for (const value of ['a.io', 'b.io', 'c.io']) {
              const found = await call(
                pd,
                'GET',
                `/api/v2/organizations/search?term=${value}&fields=custom_fields&exact_match=true`,
              );
              const ids = found.json.data.items.map((item: { item: { id: number } }) => item.item.id).sort();
              expect(ids).toEqual(
                model
                  .filter((m) => m.domain === value)
                  .map((m) => m.id)
                  .sort(),
              );
            }
          } finally {
            await pd.close();
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});

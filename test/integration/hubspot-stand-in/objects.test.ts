/**
 * The stand-in's objects API over real HTTP: upsert semantics, keys and their normalization, the batch limit,
 * duplicates, value checks, the all-or-nothing e-mail batch versus the 207 of a traced custom-key batch, and
 * batch read, create, update and single read (shared/docs/hubspot-api.md §1, §6).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HubSpotStandIn, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { call } from './http.js';

let hs: HubSpotStandIn;
beforeEach(async () => {
  hs = await startHubSpotStandIn();
  hs.defineProperty('companies', {
    name: 'hooksync_domain',
    type: 'string',
    fieldType: 'text',
    hasUniqueValue: true,
  });
});
afterEach(() => hs.close());

const upsert = (type: string, inputs: unknown[]) =>
  call(hs, 'POST', `/crm/v3/objects/${type}/batch/upsert`, { inputs });
const contact = (email: string, properties: Record<string, string> = {}) => ({
  idProperty: 'email',
  id: email,
  properties,
});

describe('batch upsert', () => {
  it('creates, then updates: provided values overwrite, "" clears, omitted stay', async () => {
    const created = await upsert('contacts', [
      contact('ada@example.com', { firstname: 'Ada', jobtitle: 'CTO' }),
    ]);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'COMPLETE', results: [{ new: true, archived: false }] });
    expect(created.body.startedAt).toEqual(expect.any(String));
    const id = created.body.results[0].id as string;
    // An e-mail-keyed answer need not echo the key (nor trace ids): matched by what was sent.
    expect(created.body.results[0].properties).toMatchObject({ hs_object_id: id });
    expect(created.body.results[0].properties.email).toBeUndefined();

    hs.seed('contacts', { email: 'bob@example.com', phone: '+1 555' });
    const updated = await upsert('contacts', [
      contact('ada@example.com', { jobtitle: 'CEO', firstname: '' }),
      contact('bob@example.com', { firstname: 'Bob' }),
    ]);
    expect(updated.status).toBe(200);
    expect(updated.body.results.map((r: { new: boolean }) => r.new)).toEqual([false, false]);
    const ada = hs.findBy('contacts', 'email', 'ada@example.com')!;
    expect(ada.id).toBe(id);
    expect(ada.properties.jobtitle).toBe('CEO');
    expect(ada.properties).not.toHaveProperty('firstname');
    expect(hs.findBy('contacts', 'email', 'bob@example.com')!.properties).toMatchObject({
      phone: '+1 555',
      firstname: 'Bob',
    });
    expect(hs.records('contacts')).toHaveLength(2);
  });

  it('matches e-mail keys case-insensitively and refuses the same key twice after normalization', async () => {
    hs.seed('contacts', { email: 'ada@example.com' });
    const again = await upsert('contacts', [contact('ADA@Example.com', { firstname: 'Ada' })]);
    expect(again.body.results[0].new).toBe(false);
    expect(hs.records('contacts')).toHaveLength(1);

    const twice = await upsert('contacts', [contact('x@example.com'), contact(' X@EXAMPLE.com')]);
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({
      status: 'error',
      category: 'VALIDATION_ERROR',
      message: 'Duplicate IDs found in batch input: [x@example.com]. IDs must be unique',
      context: { ids: ['x@example.com'] },
    });
    expect(hs.findBy('contacts', 'email', 'x@example.com')).toBeUndefined();
  });

  it('takes 100 inputs and refuses 101 with the captured message', async () => {
    const inputs = Array.from({ length: 101 }, (_, i) => contact(`p${i}@example.com`));
    const over = await upsert('contacts', inputs);
    expect(over.status).toBe(400);
    expect(over.body.message).toBe(
      'The maximum number of inputs supported in a batch is 100. Please reduce the number of items and try again',
    );
    expect(hs.records('contacts')).toHaveLength(0);
    const full = await upsert('contacts', inputs.slice(0, 100));
    expect(full.status).toBe(200);
    expect(hs.records('contacts')).toHaveLength(100);
  });

  it('refuses domain (and hs_object_id) as a company key, takes a unique custom property', async () => {
    const byDomain = await upsert('companies', [{ idProperty: 'domain', id: 'acme.com', properties: {} }]);
    expect(byDomain.status).toBe(400);
    expect(byDomain.body.message).toMatch(
      /^Unable to perform update\/upsert by non-unique 0-2 property domain/,
    );
    const byObjectId = await upsert('companies', [{ idProperty: 'hs_object_id', id: '1', properties: {} }]);
    expect(byObjectId.status).toBe(400);

    hs.seed('companies', { name: 'Acme (typed by a rep)', domain: 'acme.com' });
    const byKey = await upsert('companies', [
      { idProperty: 'hooksync_domain', id: 'acme.com', properties: { name: 'Acme', domain: 'acme.com' } },
    ]);
    expect(byKey.status).toBe(200);
    expect(byKey.body.results[0].new).toBe(true);
    // The unique key does not find the rep's record: that is the adoption problem of §1.1.
    expect(hs.records('companies')).toHaveLength(2);
    expect(hs.findBy('companies', 'hooksync_domain', 'acme.com')!.properties.name).toBe('Acme');
  });

  it('fails a whole e-mail-keyed batch on one bad value, naming it like HubSpot', async () => {
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [
        { favourite_colour: 'red' },
        'PROPERTY_DOESNT_EXIST',
        /Property \\"favourite_colour\\" does not exist/,
      ],
      [{ lifecyclestage: 'Lead' }, 'INVALID_OPTION', /Lead was not one of the allowed options/],
      [{ hs_object_id: '5' }, 'READ_ONLY_VALUE', /hs_object_id/],
    ];
    for (const [properties, code, message] of cases) {
      const answer = await upsert('contacts', [
        contact('good@example.com'),
        contact('bad@example.com', properties),
      ]);
      expect(answer.status).toBe(400);
      expect(answer.body.category).toBe('VALIDATION_ERROR');
      expect(answer.body.message).toMatch(/^Property values were not valid: \[/);
      expect(answer.body.message).toMatch(message);
      expect(answer.body.errors[0].code).toBe(code);
    }
    const badEmail = await upsert('contacts', [contact('example.lcom')]);
    expect(badEmail.status).toBe(400);
    const items = JSON.parse(badEmail.body.message.replace('Property values were not valid: ', ''));
    expect(items[0]).toMatchObject({
      error: 'INVALID_EMAIL',
      name: 'email',
      message: 'Email address example.lcom is invalid',
    });
    // Trace ids do not make an e-mail batch partial (§1.2).
    const traced = await upsert('contacts', [
      { ...contact('good@example.com'), objectWriteTraceId: 't1' },
      { ...contact('bad@example.com', { nope: 'x' }), objectWriteTraceId: 't2' },
    ]);
    expect(traced.status).toBe(400);
    expect(hs.records('contacts')).toHaveLength(0);
  });

  it('checks dates are at midnight UTC', async () => {
    hs.defineProperty('contacts', { name: 'hooksync_checked_on', type: 'date', fieldType: 'date' });
    const late = await upsert('contacts', [contact('a@example.com', { hooksync_checked_on: '1635535865' })]);
    expect(late.status).toBe(400);
    expect(late.body.message).toContain('1635535865 is at 22:18:55.865 UTC, not midnight!');
    expect(late.body.errors[0].code).toBe('INVALID_DATE');
    const midnight = String(Date.UTC(2026, 10, 25));
    const ok = await upsert('contacts', [
      contact('a@example.com', { hooksync_checked_on: midnight }),
      contact('b@example.com', { hooksync_checked_on: '2026-11-25' }),
    ]);
    expect(ok.status).toBe(200);
  });

  it('answers 207 for a custom key with a trace id on every input: the good written, the bad named', async () => {
    const answer = await upsert('companies', [
      { idProperty: 'hooksync_domain', id: 'a.com', properties: { name: 'A' }, objectWriteTraceId: 'ta' },
      {
        idProperty: 'hooksync_domain',
        id: 'b.com',
        properties: { industry: 'Software' },
        objectWriteTraceId: 'tb',
      },
      {
        idProperty: 'hooksync_domain',
        id: 'c.com',
        properties: { industry: 'COMPUTER_SOFTWARE' },
        objectWriteTraceId: 'tc',
      },
    ]);
    expect(answer.status).toBe(207);
    expect(answer.body.numErrors).toBe(1);
    expect(answer.body.errors[0]).toMatchObject({
      status: 'error',
      category: 'VALIDATION_ERROR',
      context: { objectWriteTraceId: ['tb'] },
    });
    expect(answer.body.errors[0].message).toContain('INVALID_OPTION');
    expect(answer.body.results.map((r: { objectWriteTraceId: string }) => r.objectWriteTraceId)).toEqual([
      'ta',
      'tc',
    ]);
    expect(
      hs
        .records('companies')
        .map((r) => r.properties.hooksync_domain)
        .sort(),
    ).toEqual(['a.com', 'c.com']);

    // Without a trace id on every input, the same batch fails whole.
    const untraced = await upsert('companies', [
      { idProperty: 'hooksync_domain', id: 'd.com', properties: { name: 'D' }, objectWriteTraceId: 'td' },
      { idProperty: 'hooksync_domain', id: 'e.com', properties: { industry: 'Software' } },
    ]);
    expect(untraced.status).toBe(400);
    expect(hs.findBy('companies', 'hooksync_domain', 'd.com')).toBeUndefined();
  });
});

describe('value checks beyond the key', () => {
  it('checks numbers and each part of a multi-select', async () => {
    hs.defineProperty('companies', {
      name: 'hooksync_sources',
      type: 'enumeration',
      fieldType: 'checkbox',
      options: [
        { value: 'reveal', label: 'Reveal' },
        { value: 'search', label: 'Search' },
      ],
    });
    const write = (properties: Record<string, string>) =>
      upsert('companies', [{ idProperty: 'hooksync_domain', id: 'a.com', properties }]);
    const notNumber = await write({ numberofemployees: '11-50' });
    expect(notNumber.status).toBe(400);
    expect(notNumber.body.errors[0]).toMatchObject({
      code: 'INVALID_LONG',
      context: { propertyName: ['numberofemployees'] },
    });
    expect((await write({ hooksync_sources: 'reveal;nope' })).body.errors[0].code).toBe('INVALID_OPTION');
    expect((await write({ numberofemployees: '42', hooksync_sources: 'reveal;search' })).status).toBe(200);
  });

  it('keeps unique values unique across the inputs of one batch', async () => {
    hs.defineProperty('contacts', {
      name: 'hooksync_linkedin_url',
      type: 'string',
      fieldType: 'text',
      hasUniqueValue: true,
    });
    const answer = await upsert('contacts', [
      contact('a@example.com', { hooksync_linkedin_url: 'linkedin.com/in/ada' }),
      contact('b@example.com', { hooksync_linkedin_url: 'linkedin.com/in/ada' }),
    ]);
    expect(answer.status).toBe(409);
    expect(answer.body.category).toBe('CONFLICT');
    expect(hs.records('contacts')).toHaveLength(0);
    const twice = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/create', {
      inputs: [{ properties: { email: 'c@example.com' } }, { properties: { email: 'C@example.com' } }],
    });
    expect(twice.status).toBe(409);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const response = await fetch(`${hs.url}/crm/v3/objects/contacts/batch/upsert`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hs.token}`, 'content-type': 'application/json' },
      body: '{"inputs": [',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
  });

  it('refuses a seed that HubSpot would refuse, so a test cannot set up an impossible portal', () => {
    expect(() => hs.seed('contacts', { favourite_colour: 'red' })).toThrow(TypeError);
    hs.seed('contacts', { email: 'a@example.com' });
    expect(() => hs.seed('contacts', { email: 'A@example.com' })).toThrow(/held by/);
  });
});

describe('batch read', () => {
  it('reads by e-mail, leaves out properties with no value, names misses in a 207', async () => {
    const id = hs.seed('contacts', { email: 'ada@example.com', firstname: 'Ada' });
    const answer = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', {
      idProperty: 'email',
      properties: ['firstname', 'jobtitle'],
      propertiesWithHistory: [],
      inputs: [{ id: 'ADA@example.com' }, { id: 'nobody@example.com' }],
    });
    expect(answer.status).toBe(207);
    expect(answer.body.results).toHaveLength(1);
    expect(answer.body.results[0]).toMatchObject({ id, archived: false });
    expect(answer.body.results[0].properties).toMatchObject({ firstname: 'Ada', email: 'ada@example.com' });
    expect(answer.body.results[0].properties).not.toHaveProperty('jobtitle');
    expect(answer.body.errors).toEqual([
      {
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message:
          'Could not get some CONTACT objects, they may be deleted or not exist. Check that ids are valid.',
        context: { ids: ['nobody@example.com'] },
      },
    ]);
    const allFound = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', { inputs: [{ id }] });
    expect(allFound.status).toBe(200);
    expect(allFound.body).not.toHaveProperty('errors');
  });

  it('takes 50 inputs when history is asked for', async () => {
    const inputs = Array.from({ length: 51 }, (_, i) => ({ id: String(i) }));
    const body = { properties: [], propertiesWithHistory: ['firstname'] };
    const over = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', { ...body, inputs });
    expect(over.status).toBe(400);
    expect(over.body.message).toContain('is 50');
    const within = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', {
      ...body,
      inputs: inputs.slice(1),
    });
    expect(within.status).toBe(207);
  });

  it('refuses a non-unique idProperty', async () => {
    const answer = await call(hs, 'POST', '/crm/v3/objects/companies/batch/read', {
      idProperty: 'domain',
      properties: [],
      inputs: [{ id: 'acme.com' }],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('non-unique 0-2 property domain');
  });
});

describe('batch create, batch update, single read', () => {
  it('answers 207 to a traced batch create, naming the bad input', async () => {
    const answer = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/create', {
      inputs: [
        { properties: { email: 'good@example.com' }, objectWriteTraceId: 'g' },
        { properties: { email: 'bad.example.com' }, objectWriteTraceId: 'b' },
      ],
    });
    expect(answer.status).toBe(207);
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors[0].context).toEqual({ objectWriteTraceId: ['b'] });
    expect(answer.body.results[0]).toMatchObject({
      objectWriteTraceId: 'g',
      properties: { email: 'good@example.com' },
    });
    expect(hs.records('contacts')).toHaveLength(1);
  });

  it('creates with 201, refuses an existing e-mail with 409', async () => {
    const created = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/create', {
      inputs: [{ properties: { email: 'new@example.com', firstname: 'N' } }],
    });
    expect(created.status).toBe(201);
    const existing = created.body.results[0].id as string;
    const again = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/create', {
      inputs: [{ properties: { email: 'NEW@example.com' } }],
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      category: 'CONFLICT',
      message: `Contact already exists. Existing ID: ${existing}`,
    });
  });

  it('updates by id; misses make a 207; e-mail as idProperty is refused', async () => {
    const id = hs.seed('companies', { name: 'Acme', domain: 'acme.com' });
    const answer = await call(hs, 'POST', '/crm/v3/objects/companies/batch/update', {
      inputs: [
        { id, properties: { hooksync_domain: 'acme.com' } },
        { id: '999', properties: { name: 'x' } },
      ],
    });
    expect(answer.status).toBe(207);
    expect(answer.body.errors[0]).toMatchObject({ category: 'OBJECT_NOT_FOUND', context: { ids: ['999'] } });
    expect(hs.findBy('companies', 'hooksync_domain', 'acme.com')!.id).toBe(id);
    const byEmail = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/update', {
      inputs: [{ id: 'a@example.com', idProperty: 'email', properties: { firstname: 'A' } }],
    });
    expect(byEmail.status).toBe(400);
    expect(byEmail.body.message).toContain('non-unique 0-1 property email');
  });

  it('refuses a unique value another record holds', async () => {
    hs.seed('companies', { name: 'A', hooksync_domain: 'a.com' });
    const other = hs.seed('companies', { name: 'B' });
    const answer = await call(hs, 'POST', '/crm/v3/objects/companies/batch/update', {
      inputs: [{ id: other, properties: { hooksync_domain: 'a.com' } }],
    });
    expect(answer.status).toBe(409);
    expect(answer.body.category).toBe('CONFLICT');
  });

  it('updates one record by id or e-mail with PATCH, 404 otherwise', async () => {
    const id = hs.seed('contacts', { email: 'ada@example.com', jobtitle: 'CTO', firstname: 'Ada' });
    const byEmail = await call(hs, 'PATCH', '/crm/v3/objects/contacts/ADA%40example.com?idProperty=email', {
      properties: { jobtitle: 'CEO', firstname: '' },
    });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toMatchObject({ id, properties: { jobtitle: 'CEO' } });
    expect(hs.findBy('contacts', 'email', 'ada@example.com')!.properties).not.toHaveProperty('firstname');
    const bad = await call(hs, 'PATCH', `/crm/v3/objects/contacts/${id}`, { properties: { email: 'nope' } });
    expect(bad.status).toBe(400);
    expect((await call(hs, 'PATCH', '/crm/v3/objects/contacts/42', { properties: {} })).status).toBe(404);
  });

  it('reads one record by id or e-mail, 404 otherwise', async () => {
    const id = hs.seed('contacts', { email: 'ada@example.com', jobtitle: 'CTO' });
    const byId = await call(hs, 'GET', `/crm/v3/objects/contacts/${id}?properties=jobtitle`);
    expect(byId.status).toBe(200);
    expect(byId.body.properties).toMatchObject({ jobtitle: 'CTO', hs_object_id: id });
    const byEmail = await call(hs, 'GET', '/crm/v3/objects/contacts/ada%40example.com?idProperty=email');
    expect(byEmail.body.id).toBe(id);
    const missing = await call(hs, 'GET', '/crm/v3/objects/contacts/42');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 'error', category: 'OBJECT_NOT_FOUND' });
  });
});

/**
 * The stand-in's portal over real HTTP: tokens and scopes, property definitions (the templates' columns exist,
 * creation is idempotent through 409, at most 10 unique), associations v4, search, injected faults, latency,
 * and the base path (shared/docs/hubspot-api.md §2, §3, §4).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { call, fakeClock, standInsClosedAfterEach } from './http.js';

const start = standInsClosedAfterEach();

const upsertContacts = (standIn: HubSpotStandIn, inputs: unknown[]) =>
  call(standIn, 'POST', '/crm/v3/objects/contacts/batch/upsert', { inputs });

describe('authentication and scopes', () => {
  it('answers 401 with the captured body to a missing or wrong token', async () => {
    const standIn = await start({ token: 'pat-na1-right' });
    for (const token of [null, 'pat-na1-wrong']) {
      const answer = await call(standIn, 'GET', '/crm/v3/properties/contacts', undefined, token);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION' });
      expect(answer.body.message).toMatch(/^Authentication credentials not found\./);
    }
    expect((await call(standIn, 'GET', '/crm/v3/properties/contacts')).status).toBe(200);
  });

  it('answers 403 MISSING_SCOPES naming the scope the endpoint needs', async () => {
    const standIn = await start({ scopes: ['crm.objects.contacts.read', 'crm.schemas.companies.read'] });
    const write = await upsertContacts(standIn, [
      { idProperty: 'email', id: 'a@example.com', properties: {} },
    ]);
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({
      status: 'error',
      category: 'MISSING_SCOPES',
      errors: [
        {
          message: 'One or more of the following scopes are required.',
          context: { requiredGranularScopes: ['crm.objects.contacts.write'] },
        },
      ],
    });
    const createProperty = await call(standIn, 'POST', '/crm/v3/properties/companies', {
      name: 'hooksync_domain',
      label: 'Domain key',
      type: 'string',
      fieldType: 'text',
      groupName: 'companyinformation',
      hasUniqueValue: true,
    });
    expect(createProperty.body.errors[0].context.requiredGranularScopes).toEqual([
      'crm.schemas.companies.write',
    ]);
    expect(standIn.records('contacts')).toHaveLength(0);
    expect((await call(standIn, 'GET', '/crm/v3/properties/companies/domain')).status).toBe(200);
  });
});

describe('properties', () => {
  it('has every non-hooksync column of the hubspot templates, and industry as an enumeration', async () => {
    const standIn = await start();
    for (const [file, type] of [
      ['hubspot-contacts', 'contacts'],
      ['hubspot-companies', 'companies'],
    ] as const) {
      const template = JSON.parse(
        readFileSync(new URL(`../../../templates/${file}.json`, import.meta.url), 'utf8'),
      );
      const listed = await call(standIn, 'GET', `/crm/v3/properties/${type}`);
      const names = new Set(listed.body.results.map((p: { name: string }) => p.name));
      for (const { header } of template.columns as Array<{ header: string }>) {
        // Record ID is the import's column for the record id (hs_object_id), not a property.
        if (!header.startsWith('hooksync_') && header !== 'Record ID')
          expect(names, `${type}.${header}`).toContain(header);
      }
    }
    const industry = await call(standIn, 'GET', '/crm/v3/properties/companies/industry');
    expect(industry.body).toMatchObject({ name: 'industry', type: 'enumeration', fieldType: 'select' });
    expect(industry.body.options.map((o: { value: string }) => o.value)).toContain('COMPUTER_SOFTWARE');
    expect((await call(standIn, 'GET', '/crm/v3/properties/companies/hooksync_domain')).status).toBe(404);
  });

  it('creates a property once (201, then 409) and caps unique properties at 10', async () => {
    const standIn = await start();
    const definition = {
      name: 'hooksync_domain',
      label: 'hooksync domain',
      type: 'string',
      fieldType: 'text',
      groupName: 'companyinformation',
      hasUniqueValue: true,
    };
    const created = await call(standIn, 'POST', '/crm/v3/properties/companies', definition);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'hooksync_domain', hasUniqueValue: true });
    const again = await call(standIn, 'POST', '/crm/v3/properties/companies', definition);
    expect(again.status).toBe(409);
    expect(again.body.status).toBe('error');
    expect(standIn.propertyDefinitions('companies').filter((p) => p.name === 'hooksync_domain')).toHaveLength(
      1,
    );

    for (let i = 2; i <= 10; i += 1) {
      const answer = await call(standIn, 'POST', '/crm/v3/properties/companies', {
        ...definition,
        name: `key_${i}`,
      });
      expect(answer.status).toBe(201);
    }
    const eleventh = await call(standIn, 'POST', '/crm/v3/properties/companies', {
      ...definition,
      name: 'key_11',
    });
    expect(eleventh.status).toBe(400);
    const missingFields = await call(standIn, 'POST', '/crm/v3/properties/contacts', { name: 'x' });
    expect(missingFields.status).toBe(400);
  });
});

describe('associations v4', () => {
  it('creates contact→company associations idempotently; a new primary replaces the old one', async () => {
    const standIn = await start();
    const contact = standIn.seed('contacts', { email: 'a@example.com' });
    const [first, second] = [
      standIn.seed('companies', { name: 'A' }),
      standIn.seed('companies', { name: 'B' }),
    ];
    const associate = (companyId: string, associationTypeId: number) =>
      call(standIn, 'POST', '/crm/v4/associations/contacts/companies/batch/create', {
        inputs: [
          {
            from: { id: contact },
            to: { id: companyId },
            types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId }],
          },
        ],
      });
    const created = await associate(first, 1);
    expect(created.status).toBe(201);
    expect(created.body.results[0]).toEqual({
      fromObjectTypeId: '0-1',
      fromObjectId: Number(contact),
      toObjectTypeId: '0-2',
      toObjectId: Number(first),
      labels: ['Primary'],
    });
    expect((await associate(first, 1)).status).toBe(201);
    expect(standIn.associations()).toHaveLength(2);
    await associate(second, 1);
    expect(standIn.associations()).toEqual(
      expect.arrayContaining([
        { contactId: contact, companyId: first, typeId: 279 },
        { contactId: contact, companyId: second, typeId: 279 },
        { contactId: contact, companyId: second, typeId: 1 },
      ]),
    );
    expect(standIn.associations()).toHaveLength(3);
    expect((await associate(second, 4)).status).toBe(400);

    const read = await call(standIn, 'POST', '/crm/v4/associations/contacts/companies/batch/read', {
      inputs: [{ id: contact }, { id: '777' }],
    });
    expect(read.status).toBe(207);
    expect(read.body.results).toEqual([
      {
        from: { id: contact },
        to: [
          {
            toObjectId: Number(first),
            associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 279, label: null }],
          },
          {
            toObjectId: Number(second),
            associationTypes: expect.arrayContaining([
              { category: 'HUBSPOT_DEFINED', typeId: 279, label: null },
              { category: 'HUBSPOT_DEFINED', typeId: 1, label: 'Primary' },
            ]),
          },
        ],
      },
    ]);
    expect(read.body.errors[0].context.fromObjectIds).toEqual(['777']);
  });

  it('associates by default (200), and names a missing record in a 207', async () => {
    const standIn = await start();
    const contact = standIn.seed('contacts', { email: 'a@example.com' });
    const company = standIn.seed('companies', { name: 'A' });
    const answer = await call(
      standIn,
      'POST',
      '/crm/v4/associations/contacts/companies/batch/associate/default',
      {
        inputs: [
          { from: { id: contact }, to: { id: company } },
          { from: { id: contact }, to: { id: '12345' } },
        ],
      },
    );
    expect(answer.status).toBe(207);
    expect(answer.body.results[0]).toEqual({
      from: { id: contact },
      to: { id: company },
      associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 },
    });
    expect(answer.body.errors[0].context.ids).toEqual(['12345']);
    expect(standIn.associations()).toEqual([{ contactId: contact, companyId: company, typeId: 279 }]);
  });
});

describe('search', () => {
  it('ORs groups, ANDs filters, takes EQ, IN and HAS_PROPERTY, pages, and enforces the filter limits', async () => {
    const standIn = await start({ searchPerSecond: 100 });
    standIn.seed('companies', { name: 'Acme', domain: 'acme.com' });
    standIn.seed('companies', { name: 'Acme Two', domain: 'ACME.com', city: 'Paris' });
    standIn.seed('companies', { name: 'Other', domain: 'other.com', city: 'Paris' });
    const search = (body: unknown) => call(standIn, 'POST', '/crm/v3/objects/companies/search', body);
    const eq = await search({
      filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'EQ', value: 'acme.com' }] }],
      properties: ['domain', 'name'],
      limit: 1,
    });
    expect(eq.status).toBe(200);
    expect(eq.body.total).toBe(2);
    expect(eq.body.results).toHaveLength(1);
    expect(eq.body.paging).toEqual({ next: { after: '1' } });
    const page2 = await search({
      filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'EQ', value: 'acme.com' }] }],
      limit: 1,
      after: '1',
    });
    expect(page2.body.results[0].properties.name).toBe('Acme Two');
    expect(page2.body).not.toHaveProperty('paging');
    const anded = await search({
      filterGroups: [
        {
          filters: [
            { propertyName: 'domain', operator: 'IN', values: ['acme.com', 'zzz.com'] },
            { propertyName: 'city', operator: 'HAS_PROPERTY' },
          ],
        },
        { filters: [{ propertyName: 'name', operator: 'EQ', value: 'Other' }] },
      ],
    });
    expect(anded.body.results.map((r: { properties: { name: string } }) => r.properties.name)).toEqual([
      'Acme Two',
      'Other',
    ]);
    const filter = { propertyName: 'name', operator: 'HAS_PROPERTY' };
    const tooMany = await search({ filterGroups: Array.from({ length: 6 }, () => ({ filters: [filter] })) });
    expect(tooMany.status).toBe(400);
    const tooManyInGroup = await search({
      filterGroups: [{ filters: Array.from({ length: 11 }, () => filter) }],
    });
    expect(tooManyInGroup.status).toBe(400);
    const tooManyInAll = await search({
      filterGroups: Array.from({ length: 3 }, () => ({ filters: Array.from({ length: 9 }, () => filter) })),
    });
    expect(tooManyInAll.status).toBe(400);
    expect((await search({ limit: 201 })).status).toBe(400);
  });

  it('takes tokens, NOT_HAS_PROPERTY and sorts', async () => {
    const standIn = await start();
    standIn.seed('contacts', { firstname: 'Ada', jobtitle: 'Chief Technology Officer' });
    standIn.seed('contacts', { firstname: 'Bob', jobtitle: 'Head of Sales' });
    standIn.seed('contacts', { firstname: 'Cy' });
    const names = async (filters: unknown[], sorts?: unknown[]) => {
      const answer = await call(standIn, 'POST', '/crm/v3/objects/contacts/search', {
        filterGroups: [{ filters }],
        properties: ['firstname'],
        sorts,
      });
      return answer.body.results.map((r: { properties: { firstname: string } }) => r.properties.firstname);
    };
    expect(
      await names([{ propertyName: 'jobtitle', operator: 'CONTAINS_TOKEN', value: 'technology' }]),
    ).toEqual(['Ada']);
    expect(await names([{ propertyName: 'jobtitle', operator: 'CONTAINS_TOKEN', value: 'sal*' }])).toEqual([
      'Bob',
    ]);
    expect(await names([{ propertyName: 'jobtitle', operator: 'NOT_HAS_PROPERTY' }])).toEqual(['Cy']);
    expect(
      await names(
        [{ propertyName: 'firstname', operator: 'HAS_PROPERTY' }],
        [{ propertyName: 'firstname', direction: 'DESCENDING' }],
      ),
    ).toEqual(['Cy', 'Bob', 'Ada']);
    const unknown = await call(standIn, 'POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'firstname', operator: 'LIKE', value: 'A' }] }],
    });
    expect(unknown.status).toBe(400);
  });

  it('lags behind writes when the index lag is set', async () => {
    const clock = fakeClock();
    const standIn = await start({ now: clock.now, searchIndexLagMs: 2_000 });
    await upsertContacts(standIn, [{ idProperty: 'email', id: 'a@example.com', properties: {} }]);
    const search = () => call(standIn, 'POST', '/crm/v3/objects/contacts/search', {});
    expect((await search()).body.total).toBe(0);
    clock.advance(2_000);
    expect((await search()).body.total).toBe(1);
    await upsertContacts(standIn, [
      { idProperty: 'email', id: 'a@example.com', properties: { firstname: 'Ada' } },
    ]);
    const byName = () =>
      call(standIn, 'POST', '/crm/v3/objects/contacts/search', {
        filterGroups: [{ filters: [{ propertyName: 'firstname', operator: 'EQ', value: 'Ada' }] }],
      });
    expect((await byName()).body.total).toBe(0);
    clock.advance(1_999);
    expect((await byName()).body.total).toBe(0);
    clock.advance(1);
    expect((await byName()).body.total).toBe(1);
  });
});

describe('faults, latency, paths', () => {
  it('answers injected faults for matching calls only, with HubSpot bodies by default', async () => {
    const standIn = await start();
    standIn.failNext({ status: 423, match: { pathIncludes: '/objects/companies/' } });
    standIn.failNext({
      status: 502,
      times: 2,
      match: { method: 'POST', pathIncludes: '/contacts/batch/upsert' },
    });
    standIn.failNext({
      status: 429,
      body: { status: 'error', policyName: 'DAILY' },
      headers: { 'Retry-After': '60' },
    });
    const input = [{ idProperty: 'email', id: 'a@example.com', properties: {} }];
    expect((await upsertContacts(standIn, input)).status).toBe(502);
    expect((await upsertContacts(standIn, input)).status).toBe(502);
    const throttled = await upsertContacts(standIn, input);
    expect(throttled.status).toBe(429);
    expect(throttled.body.policyName).toBe('DAILY');
    expect(throttled.headers.get('retry-after')).toBe('60');
    expect(throttled.headers.get('x-hubspot-ratelimit-max')).toBe('100');
    expect((await upsertContacts(standIn, input)).status).toBe(200);
    const locked = await call(standIn, 'GET', '/crm/v3/properties/companies/name');
    expect(locked.status).toBe(200);
    const companies = await call(standIn, 'POST', '/crm/v3/objects/companies/batch/read', { inputs: [] });
    expect(companies.status).toBe(423);
    expect(companies.body.status).toBe('error');
    expect(standIn.calls().map((c) => c.status)).toEqual([502, 502, 429, 200, 200, 423]);
    expect(standIn.calls()[0]).toMatchObject({
      method: 'POST',
      path: '/crm/v3/objects/contacts/batch/upsert',
      body: { inputs: input },
    });
  });

  it('records every call with the clock of the stand-in, and answers 404 to an unknown path', async () => {
    const clock = fakeClock();
    const standIn = await start({ now: clock.now });
    clock.advance(1_234);
    const unknown = await call(standIn, 'GET', '/crm/v3/objects/deals/1');
    expect(unknown.status).toBe(404);
    expect(unknown.body.status).toBe('error');
    expect(standIn.calls()).toEqual([
      {
        method: 'GET',
        path: '/crm/v3/objects/deals/1',
        query: '',
        status: 404,
        body: undefined,
        response: unknown.body,
        at: clock.now(),
      },
    ]);
  });

  it('delays answers by the set latency', async () => {
    const standIn = await start();
    standIn.setLatency(150);
    const started = performance.now();
    await call(standIn, 'GET', '/crm/v3/properties/contacts');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('serves under a base path and on date-versioned paths', async () => {
    const standIn = await start({ basePath: '/hubspot-api' });
    expect(standIn.url).toMatch(/\/hubspot-api$/);
    const legacy = await call(standIn, 'POST', '/crm/v3/objects/contacts/batch/upsert', {
      inputs: [{ idProperty: 'email', id: 'a@example.com', properties: {} }],
    });
    expect(legacy.status).toBe(200);
    const dated = await call(standIn, 'POST', '/crm/objects/2026-03/contacts/batch/read', {
      idProperty: 'email',
      inputs: [{ id: 'a@example.com' }],
    });
    expect(dated.status).toBe(200);
    expect((await call(standIn, 'GET', '/crm/properties/2026-03/companies/domain')).status).toBe(200);
    const outside = await fetch(standIn.url.replace('/hubspot-api', '/crm/v3/properties/contacts'), {
      headers: { authorization: `Bearer ${standIn.token}` },
    });
    expect(outside.status).toBe(404);
  });
});

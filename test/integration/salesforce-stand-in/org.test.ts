/**
 * The stand-in's REST resources: describe, SOQL with paging, collections upsert with its per-record results and
 * errors, the relationship upsert, PATCH by Id and by external id, `Sforce-Limit-Info` and the allocation.
 */
import { describe, expect, it } from 'vitest';
import { api, fakeClock, login, standInsClosedAfterEach } from './http.js';

const start = standInsClosedAfterEach();

async function setUpOrg(options: Parameters<typeof start>[0] = {}) {
  const sf = await start({ setUp: true, ...options });
  return { sf, token: await login(sf) };
}

const account = (key: string, extra: Record<string, unknown> = {}) => ({
  attributes: { type: 'Account' },
  Hooksync_Company_Id__c: key,
  Name: key.toUpperCase(),
  ...extra,
});

describe('describe', () => {
  it('shows types, lengths, picklists and the key flags; a new org lacks the custom fields', async () => {
    const sf = await start();
    const token = await login(sf);
    const lead = await api(sf, token, 'GET', 'sobjects/Lead/describe');
    expect(lead.status).toBe(200);
    const byName = new Map(lead.body.fields.map((f: { name: string }) => [f.name, f]));
    expect(byName.get('Title')).toMatchObject({ type: 'string', length: 128, updateable: true });
    expect(byName.get('Status')).toMatchObject({ type: 'picklist', restrictedPicklist: true });
    expect(byName.get('Name')).toMatchObject({ updateable: false, createable: false });
    expect(byName.has('Hooksync_Person_Id__c')).toBe(false);
    sf.defineField('Lead', { name: 'Hooksync_Person_Id__c', externalId: true, unique: true });
    const again = await api(sf, token, 'GET', 'sobjects/Lead/describe');
    expect(again.body.fields.find((f: { name: string }) => f.name === 'Hooksync_Person_Id__c')).toMatchObject(
      {
        type: 'string',
        length: 255,
        custom: true,
        externalId: true,
        unique: true,
        caseSensitive: false,
        idLookup: true,
      },
    );
    expect((await api(sf, token, 'GET', 'sobjects/Opportunity/describe')).status).toBe(404);
  });
});

describe('query', () => {
  it('pages with nextRecordsUrl at the asked batch size and selects parent fields', async () => {
    const { sf, token } = await setUpOrg({ queryPageSize: 2_000 });
    const accountId = sf.seed('Account', { Name: 'Acme', Hooksync_Company_Id__c: 'acme.com' });
    for (let i = 0; i < 450; i += 1)
      sf.seed('Contact', { LastName: `L${i}`, Hooksync_Person_Id__c: `p${i}`, AccountId: accountId });
    const q = encodeURIComponent(
      "SELECT Id, Hooksync_Person_Id__c, Account.Hooksync_Company_Id__c FROM Contact WHERE LastName LIKE 'L%'",
    );
    const first = await api(sf, token, 'GET', `query?q=${q}`, undefined, {
      'Sforce-Query-Options': 'batchSize=200',
    });
    expect(first.body).toMatchObject({ totalSize: 450, done: false });
    expect(first.body.records).toHaveLength(200);
    expect(first.body.records[0]).toMatchObject({
      attributes: { type: 'Contact' },
      Account: { Hooksync_Company_Id__c: 'acme.com' },
    });
    const seen = [...first.body.records];
    let next: string | undefined = first.body.nextRecordsUrl;
    while (next !== undefined) {
      const page = await api(sf, token, 'GET', next);
      seen.push(...page.body.records);
      next = page.body.nextRecordsUrl;
      if (next === undefined) expect(page.body.done).toBe(true);
    }
    expect(new Set(seen.map((r) => r.Id)).size).toBe(450);
  });

  it('compares text case-insensitively, answers null for empty fields, and refuses bad queries with Salesforce codes', async () => {
    const { sf, token } = await setUpOrg();
    sf.seed('Lead', { LastName: 'Ng', Company: 'Acme', Hooksync_Person_Id__c: 'ABC' });
    const q = (soql: string) => api(sf, token, 'GET', `query?q=${encodeURIComponent(soql)}`);
    const found = await q(
      "SELECT Id, Title FROM Lead WHERE Hooksync_Person_Id__c IN ('abc', 'zzz') AND (Title = null OR Title != 'x')",
    );
    expect(found.body.records).toHaveLength(1);
    expect(found.body.records[0].Title).toBeNull();
    expect((await q('SELECT Id FROM Lead WHERE')).body[0].errorCode).toBe('MALFORMED_QUERY');
    expect((await q('SELECT Nope__c FROM Lead')).body[0].errorCode).toBe('INVALID_FIELD');
    expect((await q('SELECT Id FROM Widget__c')).body[0].errorCode).toBe('INVALID_TYPE');
  });

  it("answers 414 past 16,384 characters of URI, and logs every call's URI length", async () => {
    const { sf, token } = await setUpOrg();
    const keys = Array.from({ length: 1_500 }, (_, i) => `'k${i}'`).join(',');
    const long = await api(
      sf,
      token,
      'GET',
      `query?q=${encodeURIComponent(`SELECT Id FROM Lead WHERE Hooksync_Person_Id__c IN (${keys})`)}`,
    );
    expect(long.status).toBe(414);
    expect(sf.calls().at(-1)!.uriLength).toBeGreaterThan(16_384);
  });
});

describe('collections upsert', () => {
  it('creates then updates by external id case-insensitively, in order, with created flags', async () => {
    const { sf, token } = await setUpOrg();
    const path = 'composite/sobjects/Account/Hooksync_Company_Id__c';
    const first = await api(sf, token, 'PATCH', path, {
      allOrNone: false,
      records: [account('acme.com'), account('globex.com')],
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual([
      { id: expect.stringMatching(/^001\w{15}$/), success: true, errors: [], created: true },
      { id: expect.stringMatching(/^001\w{15}$/), success: true, errors: [], created: true },
    ]);
    const second = await api(sf, token, 'PATCH', path, {
      allOrNone: false,
      records: [account('ACME.com', { Website: 'acme.com' })],
    });
    expect(second.body).toEqual([{ id: first.body[0].id, success: true, errors: [], created: false }]);
    expect(sf.records('Account')).toHaveLength(2);
    expect(sf.findBy('Account', 'Hooksync_Company_Id__c', 'acme.com')[0]).toMatchObject({
      Website: 'acme.com',
      Name: 'ACME.COM',
    });
  });

  it('fails only the records at fault, each with statusCode, message and fields', async () => {
    const { sf, token } = await setUpOrg();
    sf.defineField('Contact', {
      name: 'Seniority__c',
      type: 'picklist',
      picklist: ['VP', 'Director'],
      restrictedPicklist: true,
    });
    sf.addValidationRule({
      object: 'Contact',
      check: (v) => (v.Title === 'CEO' ? 'CEOs are entered by hand' : undefined),
      field: 'Title',
    });
    const lead = sf.seed('Contact', { LastName: 'Held', Email: 'held@acme.com' });
    sf.addDuplicateRule('Contact', 'Email');
    sf.failRecords({ where: { Hooksync_Person_Id__c: 'locked' } });
    const contact = (key: string, extra: Record<string, unknown>) => ({
      attributes: { type: 'Contact' },
      Hooksync_Person_Id__c: key,
      LastName: 'X',
      ...extra,
    });
    const answer = await api(sf, token, 'PATCH', 'composite/sobjects/Contact/Hooksync_Person_Id__c', {
      allOrNone: false,
      records: [
        contact('ok', {}),
        contact('nolast', { LastName: null }),
        contact('picklist', { Seniority__c: 'Chief' }),
        contact('long', { Title: 't'.repeat(129) }),
        contact('rule', { Title: 'CEO' }),
        contact('dupe', { Email: 'HELD@acme.com' }),
        contact('locked', {}),
        contact('mail', { Email: 'not an address' }),
        contact('readonly', { Name: 'Full' }),
      ],
    });
    const codes = answer.body.map((r: { success: boolean; errors: Array<{ statusCode: string }> }) =>
      r.success ? 'ok' : r.errors[0]!.statusCode,
    );
    expect(codes).toEqual([
      'ok',
      'REQUIRED_FIELD_MISSING',
      'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      'STRING_TOO_LONG',
      'FIELD_CUSTOM_VALIDATION_EXCEPTION',
      'DUPLICATES_DETECTED',
      'UNABLE_TO_LOCK_ROW',
      'INVALID_EMAIL_ADDRESS',
      'INVALID_FIELD_FOR_INSERT_UPDATE',
    ]);
    expect(answer.body[1].errors[0]).toEqual({
      statusCode: 'REQUIRED_FIELD_MISSING',
      message: 'Required fields are missing: [LastName]',
      fields: ['LastName'],
    });
    expect(answer.body[2].errors[0].message).toBe(
      'Seniority: bad value for restricted picklist field: Chief',
    );
    expect(answer.body[4].errors[0]).toMatchObject({
      message: 'CEOs are entered by hand',
      fields: ['Title'],
    });
    expect(answer.body[5].errors[0].duplicateResult.matchResults[0].matchRecords[0].record.Id).toBe(lead);
    expect(answer.body[6].errors[0].message).toMatch(/^unable to obtain exclusive access to this record/);
    expect(sf.records('Contact').map((r) => r.Hooksync_Person_Id__c ?? null)).toEqual([null, 'ok']);
    // The lock fault was used once: the same record saves on a retry.
    const retry = await api(sf, token, 'PATCH', 'composite/sobjects/Contact/Hooksync_Person_Id__c', {
      allOrNone: false,
      records: [contact('locked', {})],
    });
    expect(retry.body[0]).toMatchObject({ success: true, created: true });
  });

  it('fails every record naming one key twice, refuses 201 records, unknown columns and a non-key field whole', async () => {
    const { sf, token } = await setUpOrg();
    const path = 'composite/sobjects/Account/Hooksync_Company_Id__c';
    const twice = await api(sf, token, 'PATCH', path, {
      allOrNone: false,
      records: [account('a.com'), account('A.com'), account('b.com')],
    });
    expect(twice.body.map((r: { success: boolean }) => r.success)).toEqual([false, false, true]);
    expect(twice.body[0].errors[0]).toMatchObject({
      statusCode: 'DUPLICATE_VALUE',
      message: 'Duplicate external id specified: a.com',
    });
    const many = Array.from({ length: 201 }, (_, i) => account(`k${i}.com`));
    const over = await api(sf, token, 'PATCH', path, { allOrNone: false, records: many });
    expect(over).toMatchObject({ status: 400, body: [{ errorCode: 'EXCEEDED_ID_LIMIT' }] });
    expect(
      (await api(sf, token, 'PATCH', path, { allOrNone: false, records: many.slice(0, 200) })).body,
    ).toHaveLength(200);
    const unknown = await api(sf, token, 'PATCH', path, {
      allOrNone: false,
      records: [account('c.com', { Foo__c: 1 })],
    });
    expect(unknown).toMatchObject({
      status: 400,
      body: [{ errorCode: 'INVALID_FIELD', message: "No such column 'Foo__c' on sobject of type Account" }],
    });
    const byName = await api(sf, token, 'PATCH', 'composite/sobjects/Account/Name', {
      allOrNone: false,
      records: [account('d.com')],
    });
    expect(byName.body[0].errorCode).toBe('INVALID_FIELD');
    expect(
      (await api(sf, token, 'PATCH', path.replace('v62.0', 'v62.0'), { records: [{ Name: 'x' }] })).status,
    ).toBe(400);
    const old = await api(sf, token, 'PATCH', `/services/data/v45.0/${path}`, {
      allOrNone: false,
      records: [account('e.com')],
    });
    expect(old.status).toBe(404);
  });

  it('rolls every record back with allOrNone', async () => {
    const { sf, token } = await setUpOrg();
    const answer = await api(sf, token, 'PATCH', 'composite/sobjects/Account/Hooksync_Company_Id__c', {
      allOrNone: true,
      records: [account('a.com'), account('b.com', { Name: null })],
    });
    expect(answer.body[0].errors[0].statusCode).toBe('ALL_OR_NONE_OPERATION_ROLLED_BACK');
    expect(answer.body[1].errors[0].statusCode).toBe('REQUIRED_FIELD_MISSING');
    expect(sf.records('Account')).toHaveLength(0);
  });

  it("links a Contact to its Account by the Account's external id, and fails it when the Account is missing", async () => {
    const { sf, token } = await setUpOrg();
    const accountId = sf.seed('Account', { Name: 'Acme', Hooksync_Company_Id__c: 'acme.com' });
    const answer = await api(sf, token, 'PATCH', 'composite/sobjects/Contact/Hooksync_Person_Id__c', {
      allOrNone: false,
      records: [
        {
          attributes: { type: 'Contact' },
          Hooksync_Person_Id__c: 'p1',
          LastName: 'A',
          Account: { Hooksync_Company_Id__c: 'ACME.COM' },
        },
        {
          attributes: { type: 'Contact' },
          Hooksync_Person_Id__c: 'p2',
          LastName: 'B',
          Account: { Hooksync_Company_Id__c: 'nowhere.com' },
        },
      ],
    });
    expect(answer.body[0].success).toBe(true);
    expect(sf.findBy('Contact', 'Hooksync_Person_Id__c', 'p1')[0]!.AccountId).toBe(accountId);
    expect(answer.body[1].errors[0]).toEqual({
      statusCode: 'INVALID_FIELD',
      message:
        'Foreign key external ID: nowhere.com not found for field Hooksync_Company_Id__c in entity Account',
      fields: ['AccountId'],
    });
  });
});

describe('records by Id and by external id', () => {
  it('PATCHes by Id with 204, and answers 400 arrays with errorCode, 404 for no such record', async () => {
    const { sf, token } = await setUpOrg();
    const id = sf.seed('Contact', { LastName: 'Ng', Title: 'Engineer' });
    expect((await api(sf, token, 'PATCH', `sobjects/Contact/${id}`, { Title: 'CTO' })).status).toBe(204);
    expect(sf.records('Contact')[0]!.Title).toBe('CTO');
    const bad = await api(sf, token, 'PATCH', `sobjects/Contact/${id}`, { LastName: null });
    expect(bad).toMatchObject({
      status: 400,
      body: [{ errorCode: 'REQUIRED_FIELD_MISSING', fields: ['LastName'] }],
    });
    expect(
      (await api(sf, token, 'PATCH', 'sobjects/Contact/003Hs0000000zzzAAA', { Title: 'x' })).status,
    ).toBe(404);
    expect((await api(sf, token, 'GET', `sobjects/Contact/${id}`)).body).toMatchObject({
      Id: id,
      Title: 'CTO',
    });
  });

  it('upserts one row by external id: 201 created, 200 updated with created:false, 300 for several matches', async () => {
    const { sf, token } = await setUpOrg();
    sf.defineField('Lead', { name: 'Loose__c', externalId: true });
    const path = 'sobjects/Lead/Hooksync_Person_Id__c/p%2F1';
    const created = await api(sf, token, 'PATCH', path, { LastName: 'A', Company: 'Acme' });
    expect(created).toMatchObject({ status: 201, body: { success: true, created: true } });
    expect(sf.records('Lead')[0]!.Hooksync_Person_Id__c).toBe('p/1');
    expect((await api(sf, token, 'PATCH', path, { Title: 'x' })).body).toMatchObject({ created: false });
    sf.seed('Lead', { LastName: 'B', Company: 'Acme', Loose__c: 'same' });
    sf.seed('Lead', { LastName: 'C', Company: 'Acme', Loose__c: 'same' });
    const several = await api(sf, token, 'PATCH', 'sobjects/Lead/Loose__c/same', { Title: 'y' });
    expect(several.status).toBe(300);
    expect(several.body).toHaveLength(2);
  });
});

describe('allocation', () => {
  it('shows api-usage=N/M on every answer, errors included, and refuses past the limit until the rolling day frees calls', async () => {
    const clock = fakeClock();
    const { sf, token } = await setUpOrg({ now: clock.now, dailyLimit: 5, otherUsage: 2 });
    const first = await api(sf, token, 'GET', 'limits');
    expect(first.headers.get('sforce-limit-info')).toBe('api-usage=3/5');
    expect(first.body.DailyApiRequests).toEqual({ Max: 5, Remaining: 2 });
    clock.advance(60_000);
    const missing = await api(sf, token, 'GET', 'sobjects/Nope/describe');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('sforce-limit-info')).toBe('api-usage=4/5');
    expect((await api(sf, token, 'GET', 'limits')).headers.get('sforce-limit-info')).toBe('api-usage=5/5');
    const refused = await api(sf, token, 'GET', 'limits');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual([
      { message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' },
    ]);
    expect(refused.headers.get('sforce-limit-info')).toBe('api-usage=5/5');
    expect(refused.headers.get('retry-after')).toBeNull();
    clock.advance(24 * 60 * 60 * 1000 - 60_000);
    // The first call (at the start) has left the window; the two a minute later have not; the refused one never counted.
    const freed = await api(sf, token, 'GET', 'limits');
    expect(freed.status).toBe(200);
    expect(freed.headers.get('sforce-limit-info')).toBe('api-usage=5/5');
  });

  it('answers injected faults in place of the real answer, counted', async () => {
    const { sf, token } = await setUpOrg();
    sf.failNext({ status: 503, match: { pathIncludes: '/composite/' } });
    const failed = await api(sf, token, 'PATCH', 'composite/sobjects/Account/Hooksync_Company_Id__c', {
      allOrNone: false,
      records: [account('a.com')],
    });
    expect(failed).toMatchObject({ status: 503, body: [{ errorCode: 'SERVER_UNAVAILABLE' }] });
    expect(failed.headers.get('sforce-limit-info')).toBe('api-usage=1/15000');
    expect(sf.records('Account')).toHaveLength(0);
  });
});

/**
 * The Salesforce client against the stand-in: both grants, one new grant on 401 then a pause naming the
 * credentials, Sforce-Limit-Info read on every answer and the max_share rule holding calls back until the
 * probe interval, TotalRequests as a wait, 5xx retried within the call through p-retry, malformed and
 * oversized answers as failed attempts that are not retried, and SOQL paging with keys that need escaping.
 */
import { exportPKCS8, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  collectionResultsSchema,
  limitsSchema,
  TOTAL_REQUESTS_PROBE_MS,
} from '../../../src/destinations/salesforce/salesforce-answer.js';
import type { SalesforceCredentials } from '../../../src/destinations/salesforce/salesforce-auth.js';
import { keyQueries, queryAll } from '../../../src/destinations/salesforce/soql.js';
import { CrmError } from '../../../src/errors.js';
import { fakeClock, standInsClosedAfterEach } from '../salesforce-stand-in/http.js';
import { clientFor } from './client-for.js';

const start = standInsClosedAfterEach();
const signal = () => AbortSignal.timeout(20_000);
async function troubleOf(promise: Promise<unknown>): Promise<CrmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CrmError);
  return error as CrmError;
}

describe('sessions', () => {
  it('grants once by client credentials and reuses the session', async () => {
    const sf = await start();
    const { auth, client } = clientFor(sf);
    await client.json(limitsSchema, { method: 'GET', path: 'limits' }, signal());
    await client.json(limitsSchema, { method: 'GET', path: 'limits' }, signal());
    expect(auth.grants()).toBe(1);
    expect(
      sf
        .calls()
        .filter((c) => c.path.startsWith('/services/data'))
        .every((c) => c.status === 200),
    ).toBe(true);
  });

  it('grants by JWT bearer with a PKCS#8 key from the configuration', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const sf = await start({ jwtPublicKey: publicKey, jwtUsers: ['sync@acme.example'] });
    const credentials: SalesforceCredentials = {
      grant: 'jwt_bearer',
      clientId: sf.clientId,
      username: 'sync@acme.example',
      privateKey: await exportPKCS8(privateKey),
      audience: 'https://login.salesforce.com',
    };
    const { client } = clientFor(sf, { credentials });
    expect(
      (await client.json(limitsSchema, { method: 'GET', path: 'limits' }, signal())).DailyApiRequests.Max,
    ).toBe(15_000);
    const wrongUser = clientFor(sf, { credentials: { ...credentials, username: 'ceo@acme.example' } });
    const error = await troubleOf(wrongUser.client.request({ method: 'GET', path: 'limits' }, signal()));
    expect(error.trouble.kind).toBe('pause');
    expect(error.message).toContain("user hasn't approved this consumer");
  });

  it('runs the grant again once on 401 INVALID_SESSION_ID and replays the call; concurrent calls share the new grant', async () => {
    const sf = await start();
    const { auth, client } = clientFor(sf);
    await client.request({ method: 'GET', path: 'limits' }, signal());
    sf.expireSessions();
    await Promise.all([1, 2, 3].map(() => client.request({ method: 'GET', path: 'limits' }, signal())));
    expect(auth.grants()).toBe(2);
    expect(sf.grants()).toBe(2);
    expect(sf.calls().filter((c) => c.status === 401)).toHaveLength(3);
  });

  it('pauses naming the credentials when Salesforce refuses the new session too, and on a refused grant', async () => {
    const sf = await start();
    const { auth, client } = clientFor(sf);
    sf.failNext({ status: 401, times: 2 });
    const error = await troubleOf(client.request({ method: 'GET', path: 'limits' }, signal()));
    expect(error.trouble.kind).toBe('pause');
    expect(error.message).toMatch(
      /^Salesforce refused the session even after a new grant \(401\): check SF_CLIENT_ID, SF_CLIENT_SECRET/,
    );
    expect(auth.grants()).toBe(2);
    const wrong = clientFor(sf, {
      credentials: { grant: 'client_credentials', clientId: sf.clientId, clientSecret: 'wrong' },
    });
    const refused = await troubleOf(wrong.client.request({ method: 'GET', path: 'limits' }, signal()));
    expect(refused.trouble.kind).toBe('pause');
    expect(refused.message).toContain('invalid_client');
    expect(refused.message).not.toContain('wrong');
  });
});

describe('the allocation', () => {
  it('reads Sforce-Limit-Info from every answer and holds calls back past max_share until the probe interval', async () => {
    const clock = fakeClock();
    const sf = await start({ now: clock.now, dailyLimit: 1_000, otherUsage: 497 });
    const { counter, client } = clientFor(sf, { now: clock.now, maxShare: 0.5 });
    await client.request({ method: 'GET', path: 'limits' }, signal());
    expect(client.allocation.usage).toEqual({ used: 498, max: 1_000 });
    await client.request({ method: 'GET', path: 'limits' }, signal());
    expect(client.allocation.usage).toEqual({ used: 499, max: 1_000 });
    await client.request({ method: 'GET', path: 'limits' }, signal()); // leaves exactly 500 = 1 − 0.5 of the allocation
    const held = await troubleOf(client.request({ method: 'GET', path: 'limits' }, signal()));
    expect(held.trouble).toMatchObject({
      kind: 'wait',
      policy: 'max_share',
      waitMs: TOTAL_REQUESTS_PROBE_MS,
    });
    expect(held.message).toContain('used 500 of 1000');
    expect(sf.usage().used).toBe(500);
    expect(counter.limited).toEqual({ max_share: 1 });
    expect(counter.remaining).toBe(500);
    // The org's other integrations' calls leave the rolling window; after the probe interval one call reads it anew.
    sf.setOtherUsage(0);
    clock.advance(TOTAL_REQUESTS_PROBE_MS);
    await client.request({ method: 'GET', path: 'limits' }, signal());
    expect(client.allocation.usage).toEqual({ used: 4, max: 1_000 });
  });

  it('waits on REQUEST_LIMIT_EXCEEDED TotalRequests, retries the ConcurrentRequests form within the call', async () => {
    const sf = await start({ dailyLimit: 2 });
    const { client } = clientFor(sf, { maxShare: 1 });
    await client.request({ method: 'GET', path: 'limits' }, signal());
    // Another integration uses the rest of the day's calls: the client's last reading (1/2) still allows one.
    sf.setOtherUsage(5);
    const over = await troubleOf(client.request({ method: 'GET', path: 'limits' }, signal()));
    expect(over.status).toBe(403);
    expect(over.trouble).toMatchObject({
      kind: 'wait',
      policy: 'TotalRequests',
      waitMs: TOTAL_REQUESTS_PROBE_MS,
    });
    expect(over.message).toContain('REQUEST_LIMIT_EXCEEDED');
    const roomy = await start();
    const other = clientFor(roomy);
    roomy.failNext({
      status: 403,
      body: [
        {
          message: 'ConcurrentRequests (Concurrent API Requests) Limit exceeded.',
          errorCode: 'REQUEST_LIMIT_EXCEEDED',
        },
      ],
    });
    await other.client.request({ method: 'GET', path: 'limits' }, signal());
    expect(
      roomy
        .calls()
        .map((c) => c.status)
        .filter((s) => s !== 200),
    ).toEqual([403]);
  });
});

describe('failed attempts', () => {
  it("retries 5xx within the call (the core's p-retry helper, Salesforce's policy) and gives up as retry after the policy", async () => {
    const sf = await start();
    const { client } = clientFor(sf);
    sf.failNext({ status: 503, times: 2 });
    await client.request({ method: 'GET', path: 'limits' }, signal());
    sf.failNext({ status: 500, times: 3 });
    const error = await troubleOf(client.request({ method: 'GET', path: 'limits' }, signal()));
    expect(error.trouble.kind).toBe('retry');
    expect(error.message).toContain('UNKNOWN_EXCEPTION');
    expect(sf.calls().filter((c) => c.status >= 500)).toHaveLength(5);
  });

  it('counts a malformed or oversized answer as one failed attempt, not retried in the call', async () => {
    const sf = await start();
    const { client } = clientFor(sf, { maxAnswerBytes: 4_096 });
    sf.failNext({ status: 200, body: { not: 'a page' } });
    const malformed = await troubleOf(queryAll(client, 'SELECT Id FROM Lead', signal()));
    expect(malformed).toMatchObject({ status: 200, trouble: { kind: 'retry' } });
    expect(sf.calls().filter((c) => c.path.endsWith('/query'))).toHaveLength(1);
    sf.setOtherUsage(0);
    for (let i = 0; i < 60; i += 1) sf.seed('Account', { Name: `Company ${i} ${'x'.repeat(60)}` });
    const before = sf.calls().length;
    const large = await troubleOf(queryAll(client, 'SELECT Id, Name FROM Account', signal()));
    expect(large.trouble.kind).toBe('retry');
    expect(large.message).toMatch(/larger than 4096 bytes/);
    expect(sf.calls().length - before).toBe(1);
  });

  it("fails a 400 at once with Salesforce's code and message", async () => {
    const sf = await start();
    const { client } = clientFor(sf);
    const error = await troubleOf(
      client.request(
        { method: 'PATCH', path: 'composite/sobjects/Account/Name', json: { allOrNone: false, records: [] } },
        signal(),
      ),
    );
    expect(error.trouble.kind).toBe('fail');
    expect(error.message).toBe(
      'HTTP 400 INVALID_FIELD: Field name provided, Name is not an External ID or indexed field for Account',
    );
  });
});

describe('queries', () => {
  it('reads every page and finds keys that need escaping, in chunks under 2,000 characters of URI', async () => {
    const sf = await start({ setUp: true, queryPageSize: 200 });
    const keys = Array.from({ length: 450 }, (_, i) => `https://www.linkedin.com/in/o'brien-${i}`);
    for (const key of keys) sf.seed('Lead', { LastName: 'B', Company: 'Acme', Hooksync_Person_Id__c: key });
    const { client } = clientFor(sf);
    const found = [];
    for (const soql of keyQueries({
      base: client.base,
      object: 'Lead',
      fields: ['Title'],
      keyField: 'Hooksync_Person_Id__c',
      keys: keys.map((k) => k.toUpperCase()),
    }))
      found.push(...(await queryAll(client, soql, signal())));
    expect(new Set(found.map((r) => r.Hooksync_Person_Id__c))).toEqual(new Set(keys));
    const queries = sf.calls().filter((c) => c.path.endsWith('/query'));
    expect(queries.length).toBeGreaterThan(1);
    expect(Math.max(...queries.map((c) => c.uriLength))).toBeLessThanOrEqual(2_000);
  });

  it('follows nextRecordsUrl across pages', async () => {
    const sf = await start({ setUp: true, queryPageSize: 200 });
    for (let i = 0; i < 450; i += 1) sf.seed('Account', { Name: `A${i}` });
    const { client } = clientFor(sf);
    expect(await queryAll(client, 'SELECT Id FROM Account', signal())).toHaveLength(450);
    expect(sf.calls().filter((c) => c.path.includes('/query/'))).toHaveLength(2);
  });
});

describe('collections answers', () => {
  it('parses per-record results as Salesforce sends them', async () => {
    const sf = await start({ setUp: true });
    const { client } = clientFor(sf);
    sf.failRecords({ where: { Hooksync_Company_Id__c: 'b.com' } });
    const results = await client.json(
      collectionResultsSchema,
      {
        method: 'PATCH',
        path: 'composite/sobjects/Account/Hooksync_Company_Id__c',
        json: {
          allOrNone: false,
          records: ['a.com', 'b.com'].map((key) => ({
            attributes: { type: 'Account' },
            Name: key,
            Hooksync_Company_Id__c: key,
          })),
        },
      },
      signal(),
    );
    expect(results[0]).toMatchObject({ success: true, created: true });
    expect(results[1]!.errors[0]!.statusCode).toBe('UNABLE_TO_LOCK_ROW');
  });
});

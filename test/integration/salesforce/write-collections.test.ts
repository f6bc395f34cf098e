/**
 * Collections writes against the stand-in: upserts by key in calls of 200, updates by a carried Id (the key
 * stamped, nothing created), the Account named by its key in a Contact's write, locked records answered
 * `retry` without a wait inside the call, per-record failures with Salesforce's words and the matched Id of a duplicate rule.
 */
import { describe, expect, it } from 'vitest';
import {
  type RecordWrite,
  writeCollections,
} from '../../../src/destinations/salesforce/write-collections.js';
import { standInsClosedAfterEach } from '../salesforce-stand-in/http.js';
import { clientFor as clientAndCounter } from './client-for.js';

const clientFor = (sf: Parameters<typeof clientAndCounter>[0]) =>
  clientAndCounter(sf, { maxShare: 1 }).client;

const start = standInsClosedAfterEach();
const signal = () => AbortSignal.timeout(20_000);

const account = (key: string, fields: Record<string, string | number> = {}): RecordWrite => ({
  key,
  id: undefined,
  fields: { Name: key, ...fields },
});

describe('writeCollections', () => {
  it('splits 450 records into calls of 200, 200 and 50, with one outcome per record in order', async () => {
    const sf = await start({ setUp: true });
    const records = Array.from({ length: 450 }, (_, i) => account(`c${i}.com`, { NumberOfEmployees: i }));
    const outcomes = await writeCollections(
      clientFor(sf),
      { object: 'Account', keyField: 'Hooksync_Company_Id__c', records },
      signal(),
    );
    expect(outcomes.every((o) => o.ok && o.created)).toBe(true);
    const calls = sf.calls().filter((c) => c.path.includes('/composite/'));
    expect(calls.map((c) => (c.body as { records: unknown[] }).records.length)).toEqual([200, 200, 50]);
    expect(sf.findBy('Account', 'Hooksync_Company_Id__c', 'c449.com')[0]).toMatchObject({
      NumberOfEmployees: 449,
      Id: outcomes[449]!.ok ? outcomes[449]!.id : '',
    });
  });

  it('updates records by a carried Id, stamping the key, never creating; a deleted Id fails its record', async () => {
    const sf = await start({ setUp: true });
    const typed = sf.seed('Contact', { LastName: 'Ng', Title: 'Engineer' });
    const outcomes = await writeCollections(
      clientFor(sf),
      {
        object: 'Contact',
        keyField: 'Hooksync_Person_Id__c',
        records: [
          { key: 'p1', id: typed, fields: { Title: 'CTO' } },
          { key: 'p2', id: '003Hs0000000zzzAAA', fields: { Title: 'VP' } },
          { key: 'p3', id: undefined, fields: { LastName: 'New' } },
        ],
      },
      signal(),
    );
    expect(outcomes[0]).toEqual({ ok: true, id: typed, created: false });
    expect(outcomes[1]).toMatchObject({
      ok: false,
      retry: false,
      error: 'ENTITY_IS_DELETED: entity is deleted',
    });
    expect(outcomes[2]).toMatchObject({ ok: true, created: true });
    expect(sf.records('Contact')).toHaveLength(2);
    expect(sf.findBy('Contact', 'Hooksync_Person_Id__c', 'p1')[0]).toMatchObject({
      Id: typed,
      Title: 'CTO',
      LastName: 'Ng',
    });
  });

  it("names the Account by its key in a Contact's write", async () => {
    const sf = await start({ setUp: true });
    const accountId = sf.seed('Account', { Name: 'Acme', Hooksync_Company_Id__c: 'acme.com' });
    const parent = { relationship: 'Account', keyField: 'Hooksync_Company_Id__c', key: 'acme.com' };
    const outcomes = await writeCollections(
      clientFor(sf),
      {
        object: 'Contact',
        keyField: 'Hooksync_Person_Id__c',
        records: [{ key: 'p1', id: undefined, fields: { LastName: 'A' }, parent }],
      },
      signal(),
    );
    expect(outcomes[0]!.ok).toBe(true);
    expect(sf.findBy('Contact', 'Hooksync_Person_Id__c', 'p1')[0]!.AccountId).toBe(accountId);
  });

  it("answers locked records retry (the lane's schedule sends them again), the rest saved, no wait within the call", async () => {
    const sf = await start({ setUp: true });
    sf.failRecords({ where: { Hooksync_Company_Id__c: 'b.com' }, times: 1 });
    const outcomes = await writeCollections(
      clientFor(sf),
      {
        object: 'Account',
        keyField: 'Hooksync_Company_Id__c',
        records: ['a.com', 'b.com', 'c.com'].map((k) => account(k)),
      },
      signal(),
    );
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect(outcomes[1]).toMatchObject({
      ok: false,
      retry: true,
      error: expect.stringMatching(/^UNABLE_TO_LOCK_ROW: /),
    });
    expect(sf.calls().filter((c) => c.path.includes('/composite/'))).toHaveLength(1);
    expect(sf.records('Account')).toHaveLength(2);
  });

  it('fails only the record at fault, with the matched Id of a duplicate rule', async () => {
    const sf = await start({ setUp: true });
    const held = sf.seed('Lead', { LastName: 'Held', Company: 'Acme', Email: 'ada@acme.com' });
    sf.addDuplicateRule('Lead', 'Email');
    const outcomes = await writeCollections(
      clientFor(sf),
      {
        object: 'Lead',
        keyField: 'Hooksync_Person_Id__c',
        records: [
          {
            key: 'p1',
            id: undefined,
            fields: { LastName: 'Lovelace', Company: 'Acme', Email: 'ADA@acme.com' },
          },
          { key: 'p2', id: undefined, fields: { LastName: 'B' } },
          { key: 'p3', id: undefined, fields: { LastName: 'C', Company: 'Acme' } },
        ],
      },
      signal(),
    );
    expect(outcomes[0]).toEqual({
      ok: false,
      retry: false,
      error: `DUPLICATES_DETECTED: Use one of these records? (possible duplicate of ${held})`,
      duplicateOf: [held],
    });
    expect(outcomes[1]).toMatchObject({
      ok: false,
      error: 'REQUIRED_FIELD_MISSING: Required fields are missing: [Company] [Company]',
    });
    expect(outcomes[2]!.ok).toBe(true);
  });
});

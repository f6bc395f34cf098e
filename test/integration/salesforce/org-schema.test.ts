/**
 * The describe-based checks against the stand-in: a new org lacks the key and custom fields (and setup prints
 * what to create), a set-up org passes, a key that is not unique or is case sensitive is named; the described
 * types, restricted picklists and lengths reach the core's value checks.
 */
import { describe, expect, it } from 'vitest';
import { checkValues } from '../../../src/destinations/crm/check-values.js';
import {
  checkObjectFields,
  describeObject,
  fieldDefinitionsOf,
} from '../../../src/destinations/salesforce/org-schema.js';
import { standInsClosedAfterEach } from '../salesforce-stand-in/http.js';
import { clientFor as clientAndCounter } from './client-for.js';

const clientFor = (sf: Parameters<typeof clientAndCounter>[0]) =>
  clientAndCounter(sf, { maxShare: 1 }).client;

const start = standInsClosedAfterEach();

const CONTACT_FIELDS = ['FirstName', 'LastName', 'Title', 'LinkedIn_URL__c', 'Job_Change_Status__c'];

describe('checkObjectFields', () => {
  it('names what a new org lacks and what to create', async () => {
    const sf = await start();
    const fields = await describeObject(clientFor(sf), 'Contact', AbortSignal.timeout(10_000));
    const problems = checkObjectFields('Contact', fields, {
      key: 'Hooksync_Person_Id__c',
      mapped: CONTACT_FIELDS,
    });
    expect(problems.map((p) => [p.field, p.problem])).toEqual([
      ['Hooksync_Person_Id__c', 'is missing'],
      ['LinkedIn_URL__c', 'is missing'],
      ['Job_Change_Status__c', 'is missing'],
    ]);
    expect(problems[0]!.fix).toBe(
      'create the custom field Hooksync_Person_Id__c on Contact: Text(255), External ID, Unique, "Treat ABC and abc as duplicate values (case insensitive)"',
    );
    expect(problems[1]!.fix).toBe('create the custom field LinkedIn_URL__c on Contact: URL(255)');
  });

  it('passes a set-up org, and names a key that is not unique, a case-sensitive one, and a read-only mapped field', async () => {
    const sf = await start({ setUp: true });
    const client = clientFor(sf);
    const signal = AbortSignal.timeout(10_000);
    expect(
      checkObjectFields('Contact', await describeObject(client, 'Contact', signal), {
        key: 'Hooksync_Person_Id__c',
        mapped: CONTACT_FIELDS,
      }),
    ).toEqual([]);
    sf.defineField('Lead', { name: 'Hooksync_Person_Id__c', externalId: true, unique: false });
    sf.defineField('Account', {
      name: 'Hooksync_Company_Id__c',
      externalId: true,
      unique: true,
      caseSensitive: true,
    });
    sf.defineField('Account', { name: 'LinkedIn_URL__c', updateable: false });
    const lead = checkObjectFields('Lead', await describeObject(client, 'Lead', signal), {
      key: 'Hooksync_Person_Id__c',
      mapped: [],
    });
    expect(lead.map((p) => p.problem)).toEqual(['is not External ID + Unique']);
    const account = checkObjectFields('Account', await describeObject(client, 'Account', signal), {
      key: 'Hooksync_Company_Id__c',
      mapped: ['Name', 'LinkedIn_URL__c'],
    });
    expect(account.map((p) => `${p.field} ${p.problem}`)).toEqual([
      'Hooksync_Company_Id__c is case sensitive',
      'LinkedIn_URL__c is not updateable',
    ]);
  });
});

describe('fieldDefinitionsOf', () => {
  it('gives the core the types, restricted options and lengths, so values are fitted before they are sent', async () => {
    const sf = await start({ setUp: true });
    sf.defineField('Contact', {
      name: 'Seniority__c',
      type: 'picklist',
      picklist: ['VP', 'Director'],
      restrictedPicklist: true,
    });
    const definitions = fieldDefinitionsOf(
      await describeObject(clientFor(sf), 'Contact', AbortSignal.timeout(10_000)),
    );
    const checked = checkValues(
      {
        Title: 't'.repeat(200),
        Seniority__c: 'Chief',
        Email: 'not an address',
        Hooksync_Person_Id__c: 'p1',
        Nope__c: 'x',
      },
      definitions,
      'Salesforce',
    );
    expect(checked.properties).toEqual({ Title: 't'.repeat(128), Hooksync_Person_Id__c: 'p1' });
    expect(checked.warnings).toEqual([
      '"Chief" is not an option of Seniority__c',
      '"not an address" is not an e-mail address',
      'property "Nope__c" does not exist in Salesforce',
    ]);
    const accounts = fieldDefinitionsOf(
      await describeObject(clientFor(sf), 'Account', AbortSignal.timeout(10_000)),
    );
    expect(
      checkValues({ NumberOfEmployees: '51-200', Industry: 'Software Development' }, accounts).properties,
    ).toEqual({ Industry: 'Software Development' });
  });
});

import { describe, expect, it } from 'vitest';
import { mapRecords, type RecordShape } from '../../../../src/destinations/crm/map-records.js';

/** A shape keyed by the service's person id, never by e-mail (as Salesforce's). */
const SHAPE: RecordShape = {
  domain: 'Website',
  companyName: 'Name',
  email: undefined,
  personId: 'Person_Id__c',
  linkedinUrl: 'LinkedIn_URL__c',
  jobChangeStatus: 'Status__c',
  contactCompany: 'Current_Company__c',
  movedFields: ['Title'],
  leftFields: ['Status__c'],
};
const KEYS = { companyKey: 'Company_Id__c', contactKey: 'Person_Id__c' };

describe('mapRecords with a person id key', () => {
  it('keys contacts by the person id first, the LinkedIn URL next, never the e-mail, and dedupes across case', () => {
    const mapped = mapRecords(
      [
        { event: 0, companies: [], contacts: [{ Person_Id__c: 'ABC-1', LastName: 'Old', Email: 'a@x.com' }] },
        {
          event: 1,
          companies: [],
          contacts: [
            { Person_Id__c: 'abc-1', LastName: 'New', Email: 'a@x.com' },
            { Person_Id__c: '', LinkedIn_URL__c: 'linkedin.com/in/Ada/', LastName: 'L' },
            { Person_Id__c: '', Email: 'only@mail.com', LastName: 'E' },
          ],
        },
      ],
      KEYS,
      SHAPE,
    );
    expect(mapped.contacts.map((c) => [c.idProperty, c.key, c.properties.LastName, c.events])).toEqual([
      ['Person_Id__c', 'abc-1', 'New', [0, 1]],
      ['Person_Id__c', 'https://www.linkedin.com/in/ada', 'L', [1]],
    ]);
    expect(mapped.contacts[0]!.properties.Email).toBe('a@x.com');
    expect(mapped.skipped).toEqual([
      { object: 'contacts', event: 1, reason: 'neither a person id nor a LinkedIn URL' },
    ]);
  });

  it('marks a company known only as an employer, and clears the mark when its own row comes', () => {
    const employer = {
      Person_Id__c: 'p1',
      'hooksync:company_domain': 'acme.com',
      'hooksync:company_name': 'Acme',
    };
    const only = mapRecords([{ event: 0, companies: [], contacts: [employer] }], KEYS, SHAPE);
    expect(only.companies).toEqual([
      {
        key: 'acme.com',
        properties: { Name: 'Acme', Website: 'acme.com', Company_Id__c: 'acme.com' },
        events: [0],
        employerOnly: true,
      },
    ]);
    const both = mapRecords(
      [
        { event: 0, companies: [], contacts: [employer] },
        { event: 1, companies: [{ Name: 'Acme Inc', Website: 'https://www.acme.com' }], contacts: [] },
      ],
      KEYS,
      SHAPE,
    );
    expect(both.companies).toMatchObject([{ key: 'acme.com', employerOnly: false, events: [0, 1] }]);
  });
});

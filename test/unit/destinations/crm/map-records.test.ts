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
  recordId: 'Id',
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
        name: 'Acme',
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

  describe('a watch change (update only)', () => {
    const moved = {
      Person_Id__c: 'p-1',
      Title: 'CRO',
      Status__c: 'moved',
      'hooksync:company_domain': 'b.com',
    };

    it('is found, never created: one event that may create the record (the job itself) lets it be created', () => {
      const alone = mapRecords(
        [{ event: 0, companies: [], contacts: [moved], updateOnly: true }],
        KEYS,
        SHAPE,
      );
      expect(alone.contacts[0]).toMatchObject({
        updateOnly: true,
        change: true,
        primary: true,
        keyless: false,
      });
      const withJob = mapRecords(
        [
          { event: 0, companies: [], contacts: [moved] },
          { event: 1, companies: [], contacts: [moved], updateOnly: true },
        ],
        KEYS,
        SHAPE,
      );
      expect(withJob.contacts).toHaveLength(1);
      expect(withJob.contacts[0]).toMatchObject({ updateOnly: false, change: true, events: [0, 1] });
    });

    it('names a contact without a key by its carried id, never stamping it as a key; without either it fails', () => {
      const back = { Status__c: 'no_change', Id: '003A1', 'hooksync:company_domain': 'acme.com' };
      const mapped = mapRecords(
        [
          { event: 0, companies: [], contacts: [back], updateOnly: true },
          { event: 1, companies: [], contacts: [{ Status__c: 'left' }], updateOnly: true },
          { event: 2, companies: [], contacts: [], updateOnly: true, refused: 'its job is gone' },
          { event: 3, companies: [], contacts: [{ Status__c: 'left' }] },
        ],
        KEYS,
        SHAPE,
      );
      expect(mapped.contacts).toHaveLength(1);
      expect(mapped.contacts[0]).toMatchObject({
        key: '003A1',
        carriedId: '003A1',
        keyless: true,
        primary: true,
        companyKey: 'acme.com',
      });
      expect(mapped.contacts[0]!.properties).toEqual({ Status__c: 'no_change' });
      expect(mapped.skipped).toEqual([
        {
          object: 'contacts',
          event: 1,
          reason:
            'neither a person id nor a LinkedIn URL nor a carried record id: the contact cannot be found',
          fails: true,
        },
        { object: 'contacts', event: 2, reason: 'its job is gone', fails: true },
        { object: 'contacts', event: 3, reason: 'neither a person id nor a LinkedIn URL' },
      ]);
    });
  });
});

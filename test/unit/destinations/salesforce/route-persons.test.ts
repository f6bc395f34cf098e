import { describe, expect, it } from 'vitest';
import { type NewPersons, routePerson } from '../../../../src/destinations/salesforce/route-persons.js';

describe('routePerson', () => {
  const route = (policy: NewPersons, contactId?: string, leadId?: string, accountExists = false) =>
    routePerson({ policy, contactId, leadId, accountExists });

  it('updates the record that holds the key, a Contact before a Lead, whatever the policy', () => {
    for (const policy of ['contact-if-account', 'contact', 'lead'] as const) {
      expect(route(policy, '003a', '00Qa', true)).toEqual({
        object: 'Contact',
        id: '003a',
        linkAccount: true,
      });
      expect(route(policy, undefined, '00Qa', true)).toEqual({
        object: 'Lead',
        id: '00Qa',
        linkAccount: false,
      });
    }
  });

  it('makes a net-new person a Contact under an existing Account, else a Lead (contact-if-account)', () => {
    expect(route('contact-if-account', undefined, undefined, true)).toEqual({
      object: 'Contact',
      id: undefined,
      linkAccount: true,
    });
    expect(route('contact-if-account')).toEqual({ object: 'Lead', id: undefined, linkAccount: false });
  });

  it('forces the object of net-new persons with contact or lead', () => {
    expect(route('contact')).toEqual({ object: 'Contact', id: undefined, linkAccount: false });
    expect(route('contact', undefined, undefined, true)).toEqual({
      object: 'Contact',
      id: undefined,
      linkAccount: true,
    });
    expect(route('lead', undefined, undefined, true)).toEqual({
      object: 'Lead',
      id: undefined,
      linkAccount: false,
    });
  });
});

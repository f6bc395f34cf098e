/** Template rows → records: keys, in-batch dedupe (newest wins), skipped rows, moved and left contacts. */
import { describe, expect, it } from 'vitest';
import { mapRecords } from '../../../../src/destinations/hubspot/hubspot-records.js';

const KEYS = { companyKey: 'hooksync_domain', contactKey: 'hooksync_linkedin_url' };

function contact(extra: Record<string, string>) {
  return {
    firstname: 'Ann',
    lastname: 'Lee',
    email: '',
    jobtitle: 'CTO',
    company: 'Acme',
    hs_linkedin_url: 'https://www.linkedin.com/in/ann-lee',
    hooksync_job_change_status: '',
    'hooksync:company_domain': 'acme.com',
    'hooksync:company_name': 'Acme',
    ...extra,
  };
}

describe('mapRecords', () => {
  it('keys companies by the normalized domain, dedupes them and lets the newest event win whole', () => {
    const mapped = mapRecords(
      [
        { event: 0, companies: [{ name: 'Acme old', domain: 'WWW.acme.com', industry: 'X' }], contacts: [] },
        {
          event: 1,
          companies: [{ name: 'Acme', domain: 'https://acme.com/', founded_year: '' }],
          contacts: [],
        },
        { event: 2, companies: [{ name: 'Nobody', domain: '' }], contacts: [] },
      ],
      KEYS,
    );
    expect(mapped.companies).toEqual([
      {
        key: 'acme.com',
        properties: { name: 'Acme', domain: 'https://acme.com/', hooksync_domain: 'acme.com' },
        events: [0, 1],
        employerOnly: false,
        name: 'Acme',
      },
    ]);
    expect(mapped.skipped).toEqual([{ object: 'companies', event: 2, reason: 'no usable domain' }]);
  });

  it('keys contacts by e-mail when given, by the LinkedIn URL otherwise, and skips those with neither', () => {
    const mapped = mapRecords(
      [
        {
          event: 0,
          companies: [],
          contacts: [
            contact({ email: 'Ann@Acme.com' }),
            contact({ hs_linkedin_url: 'linkedin.com/in/BOB/' }),
            contact({ hs_linkedin_url: '' }),
          ],
        },
      ],
      KEYS,
    );
    expect(mapped.contacts.map((c) => [c.idProperty, c.key])).toEqual([
      ['email', 'ann@acme.com'],
      ['hooksync_linkedin_url', 'https://www.linkedin.com/in/bob'],
    ]);
    expect(mapped.contacts[0]!.properties.email).toBe('ann@acme.com');
    expect(mapped.contacts[0]!.properties.hooksync_linkedin_url).toBeUndefined();
    expect(mapped.contacts[1]!.properties.hooksync_linkedin_url).toBe('https://www.linkedin.com/in/bob');
    expect(mapped.skipped).toEqual([
      { object: 'contacts', event: 0, reason: 'neither an e-mail nor a LinkedIn URL' },
    ]);
    // No internal column ever becomes a property.
    expect(Object.keys(mapped.contacts[0]!.properties).some((name) => name.includes(':'))).toBe(false);
  });

  it("adds each contact's employer as a company without replacing a revealed company's record", () => {
    const mapped = mapRecords(
      [
        {
          event: 0,
          companies: [{ name: 'Acme Inc', domain: 'acme.com', industry: 'COMPUTER_SOFTWARE' }],
          contacts: [],
        },
        { event: 1, companies: [], contacts: [contact({})] },
      ],
      KEYS,
    );
    expect(mapped.companies).toHaveLength(1);
    expect(mapped.companies[0]!.properties.name).toBe('Acme Inc');
    expect(mapped.companies[0]!.events).toEqual([0, 1]);
    expect(mapped.contacts[0]!.companyKey).toBe('acme.com');
  });

  it('dedupes contacts across events by their normalized key', () => {
    const mapped = mapRecords(
      [
        { event: 0, companies: [], contacts: [contact({ jobtitle: 'CTO' })] },
        {
          event: 1,
          companies: [],
          contacts: [contact({ hs_linkedin_url: 'https://linkedin.com/in/Ann-Lee/', jobtitle: 'CEO' })],
        },
      ],
      KEYS,
    );
    expect(mapped.contacts).toHaveLength(1);
    expect(mapped.contacts[0]!.properties.jobtitle).toBe('CEO');
    expect(mapped.contacts[0]!.events).toEqual([0, 1]);
  });

  it('records only the status of a contact who left, with no company and no association', () => {
    const mapped = mapRecords(
      [
        {
          event: 0,
          companies: [],
          contacts: [
            contact({ email: 'ann@acme.com', hooksync_job_change_status: 'left', jobtitle: '', company: '' }),
          ],
        },
      ],
      KEYS,
    );
    expect(mapped.contacts[0]!.properties).toEqual({
      hooksync_job_change_status: 'left',
      email: 'ann@acme.com',
    });
    expect(mapped.contacts[0]!.companyKey).toBeUndefined();
    expect(mapped.companies).toEqual([]);
  });
});

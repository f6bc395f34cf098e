import { describe, expect, it } from 'vitest';
import { parseSearchContactRequest } from '../../../src/contract/requests.js';
import { parseTitleFilter } from '../../../src/contract/title-filter.js';
import type { ValidationCode } from '../../../src/errors.js';
import { refusal } from './refusal.js';

const CONTACT = { contact_linkedin: 'https://www.linkedin.com/in/jane-doe' };
const COMPANY = { domain: 'acme.com' };
const COMPANY_SET = {
  company_industries: ['Computer Software'],
  experience_start_date: '2025-01-01',
  title_filters: [{ name: 'Sales leaders', filter: 'VP Sales OR Head of Sales' }],
};

const s = (length: number, char = 'a'): string => char.repeat(length);
const list = <T>(count: number, item: T): T[] => Array(count).fill(item);

type Row = [label: string, body: Record<string, unknown>, code: ValidationCode, issuePath: string];

const BAD = 'VALIDATION_BAD_REQUEST';
const NAME = 'VALIDATION_BAD_NAME_INVALID';

/** Every field rule and limit of the request table, broken once each. */
const FIELD_RULES: Row[] = [
  ['contact_linkedin of 2 characters', { contact_linkedin: 'ab' }, BAD, 'contact_linkedin'],
  ['contact_linkedin of 501 characters', { contact_linkedin: s(501) }, BAD, 'contact_linkedin'],
  ['contact_linkedin a number', { contact_linkedin: 42 }, BAD, 'contact_linkedin'],
  ['domain of 3 characters', { domain: 'a.b' }, BAD, 'domain'],
  ['domain of 501 characters', { domain: `${s(497)}.com` }, BAD, 'domain'],
  ['domain null (typed string only)', { domain: null, company_name: 'Acme' }, BAD, 'domain'],
  [
    'domain with an underscore',
    { domain: 'acme_corp.com' },
    'VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS',
    'domain',
  ],
  ['domain with a space', { domain: 'acme corp.com' }, 'VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS', 'domain'],
  [
    'domain with non-ASCII letters',
    { domain: 'münchen.de' },
    'VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS',
    'domain',
  ],
  [
    'domain URL with a bad host',
    { domain: 'https://acme!.com/x' },
    'VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS',
    'domain',
  ],
  ['domain without a dot', { domain: 'acmecorp' }, 'VALIDATION_BAD_DOMAIN', 'domain'],
  ['domain URL without a TLD', { domain: 'http://localhost:3000/' }, 'VALIDATION_BAD_DOMAIN', 'domain'],
  ['domain with a one-letter TLD', { domain: 'acme.c' }, 'VALIDATION_BAD_DOMAIN', 'domain'],
  ['domain with a numeric TLD', { domain: 'acme.123' }, 'VALIDATION_BAD_DOMAIN', 'domain'],
  ['domain with an empty label', { domain: 'acme..com' }, 'VALIDATION_BAD_DOMAIN', 'domain'],
  ['domain with a label ending in -', { domain: 'acme-.com' }, 'VALIDATION_BAD_DOMAIN', 'domain'],
  ['company_linkedin of 2 characters', { company_linkedin: 'ab' }, BAD, 'company_linkedin'],
  ['company_linkedin of 501 characters', { company_linkedin: s(501) }, BAD, 'company_linkedin'],
  ['company_name of 2 characters', { company_name: 'AB' }, BAD, 'company_name'],
  ['company_name of 501 characters', { company_name: s(501) }, BAD, 'company_name'],
  ['company_name null (typed string only)', { company_name: null, domain: 'acme.com' }, BAD, 'company_name'],
  ['201 excluded_names', { ...CONTACT, excluded_names: list(201, 'Jane Doe') }, BAD, 'excluded_names'],
  ['an excluded name of 3 characters', { ...CONTACT, excluded_names: ['Ali'] }, NAME, 'excluded_names[0]'],
  [
    'an excluded name of 251 characters',
    { ...CONTACT, excluded_names: ['Jane Doe', s(251)] },
    NAME,
    'excluded_names[1]',
  ],
  ['excluded_names a string', { ...CONTACT, excluded_names: 'Jane Doe' }, BAD, 'excluded_names'],
  ['101 included_names', { ...CONTACT, included_names: list(101, 'Jane Doe') }, BAD, 'included_names'],
  ['an included name of 3 characters', { ...CONTACT, included_names: ['Bob'] }, NAME, 'included_names[0]'],
  ['an included name of 251 characters', { ...CONTACT, included_names: [s(251)] }, NAME, 'included_names[0]'],
  [
    '6 title_filters',
    { ...COMPANY, title_filters: list(6, { name: 'n', filter: 'CEO' }) },
    BAD,
    'title_filters',
  ],
  [
    'a title filter without filter',
    { ...COMPANY, title_filters: [{ name: 'n' }] },
    BAD,
    'title_filters[0].filter',
  ],
  [
    'a title filter without name',
    { ...COMPANY, title_filters: [{ filter: 'CEO' }] },
    BAD,
    'title_filters[0].name',
  ],
  ['a title filter that is a string', { ...COMPANY, title_filters: ['CEO'] }, BAD, 'title_filters[0]'],
  ['6 title_lists', { ...COMPANY, title_lists: list(6, { id: 1 }) }, BAD, 'title_lists'],
  ['a title list that is a string', { ...COMPANY, title_lists: ['sales'] }, BAD, 'title_lists[0]'],
  ['an unknown department', { ...COMPANY, departments: ['R&D'] }, BAD, 'departments[0]'],
  ['departments a string', { ...COMPANY, departments: 'Sales' }, BAD, 'departments'],
  ['an unknown seniority', { ...COMPANY, seniorities: ['Director', 'Boss'] }, BAD, 'seniorities[1]'],
  [
    '51 location_countries',
    { ...COMPANY, location_countries: list(51, 'Germany') },
    BAD,
    'location_countries',
  ],
  ['an empty location country', { ...COMPANY, location_countries: [''] }, BAD, 'location_countries[0]'],
  [
    'a location country of 201 characters',
    { ...COMPANY, location_countries: [s(201)] },
    BAD,
    'location_countries[0]',
  ],
  [
    '51 company_location_countries',
    { ...COMPANY_SET, company_location_countries: list(51, 'France') },
    BAD,
    'company_location_countries',
  ],
  [
    'an empty company country',
    { ...COMPANY_SET, company_location_countries: [''] },
    BAD,
    'company_location_countries[0]',
  ],
  [
    'a company country of 201 characters',
    { ...COMPANY_SET, company_location_countries: [s(201)] },
    BAD,
    'company_location_countries[0]',
  ],
  [
    '51 company_industries',
    { ...COMPANY_SET, company_industries: list(51, 'Banking') },
    BAD,
    'company_industries',
  ],
  [
    'an industry of 4 characters',
    { ...COMPANY_SET, company_industries: ['Tech'] },
    BAD,
    'company_industries[0]',
  ],
  [
    'an industry of 58 characters',
    { ...COMPANY_SET, company_industries: [s(58)] },
    BAD,
    'company_industries[0]',
  ],
  [
    '9 company_employee_ranges',
    { ...COMPANY_SET, company_employee_ranges: list(9, '1-10') },
    BAD,
    'company_employee_ranges',
  ],
  [
    'an unknown employee range',
    { ...COMPANY_SET, company_employee_ranges: ['10-50'] },
    BAD,
    'company_employee_ranges[0]',
  ],
  [
    'experience_start_date without zero padding',
    { ...COMPANY_SET, experience_start_date: '2025-1-01' },
    BAD,
    'experience_start_date',
  ],
  [
    'experience_start_date on 2025-02-29',
    { ...COMPANY_SET, experience_start_date: '2025-02-29' },
    BAD,
    'experience_start_date',
  ],
  [
    'experience_start_date in month 13',
    { ...COMPANY_SET, experience_start_date: '2025-13-01' },
    BAD,
    'experience_start_date',
  ],
  [
    'experience_start_date written 01/02/2025',
    { ...COMPANY_SET, experience_start_date: '01/02/2025' },
    BAD,
    'experience_start_date',
  ],
  [
    'experience_start_date_new_hire on 2023-02-29',
    { ...COMPANY_SET, experience_start_date_new_hire: '2023-02-29' },
    BAD,
    'experience_start_date_new_hire',
  ],
  [
    'experience_start_date_new_hire with a time',
    { ...COMPANY_SET, experience_start_date_new_hire: '2025-01-01T00:00:00Z' },
    BAD,
    'experience_start_date_new_hire',
  ],
  ['page_number 0', { ...COMPANY, page_number: 0 }, BAD, 'page_number'],
  ['page_number 101', { ...COMPANY, page_number: 101 }, BAD, 'page_number'],
  ['page_number 1.5', { ...COMPANY, page_number: 1.5 }, BAD, 'page_number'],
  ['page_number "2"', { ...COMPANY, page_number: '2' }, BAD, 'page_number'],
  ['page_number null', { ...COMPANY, page_number: null }, BAD, 'page_number'],
  ['page_size 0', { ...COMPANY, page_size: 0 }, BAD, 'page_size'],
  ['page_size 251', { ...COMPANY, page_size: 251 }, BAD, 'page_size'],
  ['page_size 2.5', { ...COMPANY, page_size: 2.5 }, BAD, 'page_size'],
  ['page_size a bigint', { ...COMPANY, page_size: 12345678901234567890n }, BAD, 'page_size'],
  ['webhook_url with ftp', { ...COMPANY, webhook_url: 'ftp://hooks.example.com/x' }, BAD, 'webhook_url'],
  ['webhook_url not a URL', { ...COMPANY, webhook_url: 'hooks.example.com/x' }, BAD, 'webhook_url'],
  [
    'webhook_url of 2084 characters',
    { ...COMPANY, webhook_url: `https://h.example/${s(2066)}` },
    BAD,
    'webhook_url',
  ],
  ['custom_fields ""', { ...COMPANY, custom_fields: '' }, BAD, 'custom_fields'],
  ['custom_fields with a bad key', { ...COMPANY, custom_fields: { 'a b': 1 } }, BAD, 'custom_fields.a b'],
];

describe('parseSearchContactRequest: field rules', () => {
  it.each(FIELD_RULES)('refuses %s with %s', (_label, body, code, issuePath) => {
    const error = refusal(parseSearchContactRequest, body);
    expect(error.code).toBe(code);
    expect(error.issues.some((issue) => issue.startsWith(`${issuePath}: `))).toBe(true);
  });

  it('says which field broke which rule', () => {
    expect(refusal(parseSearchContactRequest, { ...COMPANY, page_size: 251 }).issues).toEqual([
      'page_size: must be an integer from 1 to 250',
    ]);
    expect(
      refusal(parseSearchContactRequest, { ...COMPANY, page_number: undefined, company_name: 'AB' }).issues,
    ).toEqual(['company_name: must be 3 to 500 characters long']);
  });

  it('lists every broken rule, with the most specific code', () => {
    const error = refusal(parseSearchContactRequest, {
      domain: 'acme_corp.com',
      page_size: 0,
      seniorities: ['Boss'],
    });
    expect(error.code).toBe('VALIDATION_BAD_DOMAIN_INVALID_CHARACTERS');
    expect(error.issues.map((i) => i.split(':')[0])).toEqual(['domain', 'seniorities[0]', 'page_size']);
  });

  const boundaries: [string, Record<string, unknown>][] = [
    ['contact_linkedin of 3 characters', { contact_linkedin: 'abc' }],
    ['contact_linkedin of 500 characters', { contact_linkedin: s(500) }],
    ['domain of 4 characters', { domain: 'a.io' }],
    ['domain URL of 500 characters', { domain: `https://acme.com/${s(483)}` }],
    ['company_name of 3 characters', { company_name: 'IBM' }],
    ['company_name of 500 characters', { company_name: s(500) }],
    ['company_linkedin of 3 characters', { company_linkedin: 'ibm' }],
    [
      '200 excluded and 100 included names',
      { ...CONTACT, excluded_names: list(200, 'Jane'), included_names: list(100, s(250)) },
    ],
    [
      '5 title_filters and 5 title_lists',
      {
        ...COMPANY,
        title_filters: list(5, { name: 'n', filter: 'CEO' }),
        title_lists: list(5, { any: ['thing'] }),
      },
    ],
    [
      'every department and seniority',
      { ...COMPANY, departments: ['Leadership', 'Other'], seniorities: ['Owner', 'Entry'] },
    ],
    ['50 countries of 1 and 200 characters', { ...COMPANY, location_countries: [...list(49, 'X'), s(200)] }],
    [
      '50 company countries, 50 industries of 5 and 57 characters, 8 ranges',
      {
        ...COMPANY_SET,
        company_location_countries: list(50, 'Germany'),
        company_industries: [...list(49, 'Banks'), s(57)],
        company_employee_ranges: [
          '1-10',
          '11-50',
          '51-200',
          '201-500',
          '501-1000',
          '1001-5000',
          '5001-10000',
          '10001+',
        ],
      },
    ],
    ['page_number 1 and page_size 250', { ...COMPANY, page_number: 1, page_size: 250 }],
    ['page_number 100 and page_size 1', { ...COMPANY, page_number: 100, page_size: 1 }],
    [
      'a leap day and null dates',
      { ...COMPANY_SET, experience_start_date: '2024-02-29', experience_start_date_new_hire: null },
    ],
    ['webhook_url of 2083 characters', { ...COMPANY, webhook_url: `https://h.example/${s(2065)}` }],
    [
      'null lists',
      { ...CONTACT, excluded_names: null, title_filters: null, departments: null, company_industries: null },
    ],
  ];
  it.each(boundaries)('accepts %s', (_label, body) => {
    expect(() => parseSearchContactRequest(body)).not.toThrow();
  });
});

describe('parseSearchContactRequest: search modes', () => {
  const bad: [string, Record<string, unknown>, ValidationCode][] = [
    ['no mode', { page_size: 5 }, BAD],
    ['an empty body', {}, BAD],
    ['contact and company', { ...CONTACT, ...COMPANY }, BAD],
    ['company and company-set', { ...COMPANY_SET, company_name: 'Acme' }, BAD],
    ['contact and company-set', { ...COMPANY_SET, ...CONTACT }, BAD],
    ['all three modes', { ...COMPANY_SET, ...CONTACT, ...COMPANY }, BAD],
    ['only empty or null mode fields', { contact_linkedin: null, company_industries: [] }, BAD],
    ['company-set without a start date', { ...COMPANY_SET, experience_start_date: undefined }, BAD],
    [
      'company-set with null start dates',
      { ...COMPANY_SET, experience_start_date: null, experience_start_date_new_hire: null },
      BAD,
    ],
    [
      'company-set without title filters or lists',
      { ...COMPANY_SET, title_filters: undefined },
      'VALIDATION_MISSING_TITLE_FILTERS',
    ],
    [
      'company-set with empty title filters',
      { ...COMPANY_SET, title_filters: [], title_lists: null },
      'VALIDATION_MISSING_TITLE_FILTERS',
    ],
    ['company-set without either', { company_employee_ranges: ['1-10'] }, 'VALIDATION_MISSING_TITLE_FILTERS'],
  ];
  it.each(bad)('refuses %s with %s', (_label, body, code) => {
    const error = refusal(parseSearchContactRequest, body);
    expect(error.code).toBe(code);
  });

  it('names the modes it got', () => {
    expect(refusal(parseSearchContactRequest, { ...CONTACT, ...COMPANY }).issues[0]).toMatch(
      /^search mode: give exactly one of .* \(got contact and company\)$/,
    );
    expect(refusal(parseSearchContactRequest, {}).issues[0]).toMatch(/\(got none\)$/);
    expect(refusal(parseSearchContactRequest, { company_employee_ranges: ['1-10'] }).issues).toHaveLength(2);
  });

  const good: [string, Record<string, unknown>][] = [
    ['contact search', CONTACT],
    ['company search by domain', COMPANY],
    ['company search by LinkedIn', { company_linkedin: 'acme-corp' }],
    ['company search by name', { company_name: 'Acme' }],
    [
      'company search with all three identifiers',
      { domain: 'acme.com', company_linkedin: 'acme', company_name: 'Acme' },
    ],
    ['company-set search', COMPANY_SET],
    [
      'company-set with several filters',
      { ...COMPANY_SET, company_location_countries: ['Germany'], company_employee_ranges: ['51-200'] },
    ],
    [
      'company-set with the new-hire date and title lists',
      {
        company_location_countries: ['Germany'],
        experience_start_date_new_hire: '2025-06-01',
        title_lists: [{ id: 'sales' }],
      },
    ],
    [
      'contact search with other modes null or empty',
      { ...CONTACT, company_industries: null, company_employee_ranges: [] },
    ],
  ];
  it.each(good)('accepts %s', (_label, body) => {
    expect(() => parseSearchContactRequest(body)).not.toThrow();
  });
});

describe('parseSearchContactRequest: title filters', () => {
  it.each(['', '   ', 'CEO AND', '(CEO', 'CEO)', 'NOT CEO', 'CEO AND(CTO)'])(
    'propagates the parser error for %j',
    (filter) => {
      const error = refusal(parseSearchContactRequest, {
        ...COMPANY,
        title_filters: [{ name: 'n', filter }],
      });
      const direct = refusal((text) => parseTitleFilter(text as string), filter);
      expect(error.code).toMatch(/^VALIDATION_BAD_TITLE_FILTER/);
      expect(error.code).toBe(direct.code);
      expect(error.message).toBe(direct.message);
    },
  );

  it('checks every filter, not just the first', () => {
    const filters = [
      { name: 'ok', filter: 'CEO' },
      { name: 'bad', filter: '(CTO' },
    ];
    expect(refusal(parseSearchContactRequest, { ...COMPANY, title_filters: filters }).code).toBe(
      'VALIDATION_BAD_TITLE_FILTER_MISSING_RIGHT_PARENTHESIS',
    );
  });

  it('keeps the filter text as sent', () => {
    const filter = 'VP Sales OR (Head of Sales AND NOT Intern)';
    expect(
      parseSearchContactRequest({ ...COMPANY, title_filters: [{ name: 'n', filter }] }).title_filters,
    ).toEqual([{ name: 'n', filter }]);
  });
});

describe('parseSearchContactRequest: result', () => {
  it('fills the defaults', () => {
    expect(parseSearchContactRequest(CONTACT)).toEqual({
      ...CONTACT,
      page_number: 1,
      page_size: 10,
      webhook_url: null,
      custom_fields: {},
    });
  });

  it('keeps given values and unknown extra fields untouched', () => {
    const extra = { nested: [1, { deep: true }] };
    const body = {
      ...COMPANY_SET,
      page_number: 3,
      page_size: 250,
      custom_fields: { crm: 'x' },
      x_future: extra,
    };
    const parsed = parseSearchContactRequest(body);
    expect(parsed).toEqual({ ...body, webhook_url: null });
    expect(parsed.x_future).toBe(extra);
  });

  it.each([
    ['https://www.acme.com/about', 'acme.com'],
    ['http://acme.com', 'acme.com'],
    ['ACME.com', 'acme.com'],
    ['www.acme.co.uk/', 'acme.co.uk'],
    ['https://user:secret@www.acme.com:8443/x?y=1#z', 'acme.com'],
    ['//acme.com/path', 'acme.com'],
    ['acme.com.', 'acme.com'],
    ['  acme.com  ', 'acme.com'],
    ['https://shop.acme.io', 'shop.acme.io'],
    ['www.com', 'www.com'],
    ['xn--mnchen-3ya.de', 'xn--mnchen-3ya.de'],
    ['https://www.xn--80ak6aa92e.xn--p1ai/', 'xn--80ak6aa92e.xn--p1ai'],
  ])('reduces domain %j to %j', (domain, bare) => {
    expect(parseSearchContactRequest({ domain }).domain).toBe(bare);
  });
});

describe('parseSearchContactRequest: body', () => {
  it.each([undefined, null])('refuses %s with VALIDATION_MISSING_BODY', (body) => {
    expect(refusal(parseSearchContactRequest, body).code).toBe('VALIDATION_MISSING_BODY');
  });
  it.each([[[]], ['{"domain":"acme.com"}'], [5]])('refuses %j with VALIDATION_BAD_REQUEST', (body) => {
    expect(refusal(parseSearchContactRequest, body).code).toBe('VALIDATION_BAD_REQUEST');
  });
});

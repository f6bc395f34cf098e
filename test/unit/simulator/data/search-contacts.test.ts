import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEPARTMENTS, EMPLOYEE_RANGES, SENIORITIES } from '../../../../src/contract/enums.js';
import type { SearchContactRequestInput } from '../../../../src/contract/requests.js';
import { type SearchContactPerson, searchContactOutputSchema } from '../../../../src/contract/resources.js';
import { compileTitleFilter } from '../../../../src/contract/title-filter.js';
import { createSyntheticWorld } from '../../../../src/simulator/data/create-synthetic-world.js';
import { searchRequest, USAGE } from './world-fixtures.js';

const world = createSyntheticWorld({ seed: 'search-test', companyCount: 120 });
const search = (input: SearchContactRequestInput) => world.searchContacts(searchRequest(input));
const byId = new Map(world.companies.map((c) => [c.id, c]));
const companyOf = (person: SearchContactPerson) => byId.get(person.company_id!)!;
/** A company with a good-sized staff, to search inside. */
const big = world.companies.find((c) => search({ domain: c.domain }).total >= 25)!;
const staff = search({ domain: big.domain, page_size: 250 }).persons;
const ids = (persons: readonly SearchContactPerson[]) => persons.map((p) => p.id);
const SINCE = '2021-01-01';
const everyRange = { company_employee_ranges: [...EMPLOYEE_RANGES], experience_start_date: '1900-01-01' };
const anyTitle = { title_filters: [{ name: 'any', filter: 'Engineer OR Manager OR Director' }] };

describe('world.searchContacts: modes', () => {
  it('contact mode: a LinkedIn URL or id gives that person, however it is written', () => {
    const person = staff[3]!;
    for (const value of [
      person.linkedin_url!,
      person.linkedin_id!,
      `${person.linkedin_url!.toUpperCase()}/`,
      `${person.linkedin_url}?trk=x`,
    ]) {
      const result = search({ contact_linkedin: value });
      expect(result.total).toBe(1);
      expect(result.persons[0]).toEqual(person);
    }
  });

  it('contact mode: an unknown profile is synthesised, deterministically, with the LinkedIn id asked for', () => {
    const result = search({ contact_linkedin: 'https://www.linkedin.com/in/Zoe-OBrien-42' });
    expect(result.total).toBe(1);
    expect(result.persons[0]!.linkedin_id).toBe('zoe-obrien-42');
    expect(search({ contact_linkedin: 'zoe-obrien-42' })).toEqual(result);
    const twin = createSyntheticWorld({ seed: 'search-test', companyCount: 120 });
    expect(twin.searchContacts(searchRequest({ contact_linkedin: 'zoe-obrien-42' }))).toEqual(result);
    expect(search({ contact_linkedin: 'someone-else-43' }).persons[0]!.id).not.toBe(result.persons[0]!.id);
  });

  it('company mode: domain (plain or URL), company LinkedIn (URL or id) and name give the same staff', () => {
    expect(staff.length).toBeGreaterThanOrEqual(25);
    for (const person of staff) expect(person.company_domain).toBe(big.domain);
    const expected = ids(staff);
    const variants: SearchContactRequestInput[] = [
      { domain: `https://www.${big.domain}/about?x=1` },
      { company_name: ` ${big.name.toUpperCase()} ` },
    ];
    if (big.linkedin_url !== null)
      variants.push({ company_linkedin: big.linkedin_url }, { company_linkedin: big.linkedin_id });
    for (const variant of variants)
      expect(ids(search({ ...variant, page_size: 250 }).persons)).toEqual(expected);
  });

  it('company mode: an unknown domain, page or name gets a synthesised company with staff', () => {
    const byDomain = search({ domain: 'brand-new-co.io', page_size: 250 });
    expect(byDomain.total).toBeGreaterThan(0);
    for (const person of byDomain.persons) {
      expect(person.company_domain).toBe('brand-new-co.io');
      expect(person.company_name).toBe('Brand New Co');
    }
    expect(search({ domain: 'https://brand-new-co.io/', page_size: 250 })).toEqual(byDomain);
    const byName = search({ company_name: "Zoë's Bakery & Sons" });
    expect(byName.persons[0]!.company_name).toBe("Zoë's Bakery & Sons");
    const byPage = search({ company_linkedin: 'https://www.linkedin.com/company/acme-rockets' });
    expect(byPage.total).toBeGreaterThan(0);
    // A synthesised company's people can be found again by their profile.
    const someone = byDomain.persons[0]!;
    expect(search({ contact_linkedin: someone.linkedin_url! }).persons[0]).toEqual(someone);
  });

  it('company-set mode: people of the companies matching every given set, and only them', () => {
    const countries = ['United States', 'germany'];
    const ranges = ['11-50', '51-200', '201-500'] as const;
    const result = search({
      company_location_countries: countries,
      company_employee_ranges: [...ranges],
      experience_start_date: '1900-01-01',
      ...anyTitle,
      page_size: 250,
    });
    expect(result.total).toBeGreaterThan(0);
    const expected = world.companies
      .filter(
        (c) =>
          ['united states', 'germany'].includes(c.country!.toLowerCase()) &&
          (ranges as readonly string[]).includes(c.size),
      )
      .reduce(
        (sum, c) =>
          sum + search({ domain: c.domain, experience_start_date: '1900-01-01', ...anyTitle }).total,
        0,
      );
    expect(result.total).toBe(expected);
    const industry = world.companies[0]!.industry!;
    const byIndustry = search({
      company_industries: [industry.toUpperCase()],
      experience_start_date_new_hire: '1900-01-01',
      ...anyTitle,
      page_size: 250,
    });
    expect(byIndustry.total).toBeGreaterThan(0);
    for (const person of byIndustry.persons) expect(companyOf(person).industry).toBe(industry);
    expect(
      search({ company_industries: ['Space Tourism'], experience_start_date: '1900-01-01', ...anyTitle })
        .total,
    ).toBe(0);
  });

  it('throws TypeError for a request without a mode (the server validates before asking)', () => {
    const unvalidated = { page_number: 1, page_size: 10 } as Parameters<typeof world.searchContacts>[0];
    expect(() => world.searchContacts(unvalidated)).toThrow(TypeError);
  });
});

describe('world.searchContacts: filters', () => {
  it('experience_start_date and _new_hire keep current roles started on or after the date', () => {
    for (const field of ['experience_start_date', 'experience_start_date_new_hire'] as const) {
      const result = search({ ...everyRange, [field]: SINCE, ...anyTitle, page_size: 250 });
      const all = search({ ...everyRange, ...anyTitle });
      expect(result.total).toBeGreaterThan(0);
      expect(result.total).toBeLessThan(all.total);
      for (const person of result.persons) expect(person.experiences[0]!.start_date! >= SINCE).toBe(true);
    }
    const inside = search({ domain: big.domain, experience_start_date: SINCE, page_size: 250 });
    expect(ids(inside.persons)).toEqual(ids(staff.filter((p) => p.experiences[0]!.start_date! >= SINCE)));
  });

  it('seniorities, departments and location_countries keep only matching people', () => {
    const bySeniority = search({
      ...everyRange,
      ...anyTitle,
      seniorities: ['Manager', 'Director'],
      page_size: 250,
    });
    expect(bySeniority.total).toBeGreaterThan(0);
    for (const p of bySeniority.persons) expect(['Manager', 'Director']).toContain(p.seniority);
    const byDepartment = search({
      domain: big.domain,
      departments: ['Engineering', 'Sales'],
      page_size: 250,
    });
    expect(ids(byDepartment.persons)).toEqual(
      ids(staff.filter((p) => ['Engineering', 'Sales'].includes(p.department!))),
    );
    const country = staff[0]!.country!;
    const byCountry = search({
      domain: big.domain,
      location_countries: [country.toLowerCase()],
      page_size: 250,
    });
    expect(ids(byCountry.persons)).toEqual(ids(staff.filter((p) => p.country === country)));
    expect(search({ domain: big.domain, location_countries: ['Atlantis'] }).total).toBe(0);
  });

  it('included_names restricts to those full names, excluded_names removes them (case and spacing ignored)', () => {
    const [a, b] = [staff[1]!, staff[2]!];
    const name = (p: SearchContactPerson) => `${p.first_name} ${p.last_name}`;
    const included = search({
      domain: big.domain,
      included_names: [name(a).toUpperCase(), `  ${name(b)}`],
      page_size: 250,
    });
    expect(ids(included.persons)).toEqual(ids(staff.filter((p) => [name(a), name(b)].includes(name(p)))));
    const excluded = search({ domain: big.domain, excluded_names: [name(a)], page_size: 250 });
    expect(ids(excluded.persons)).toEqual(ids(staff.filter((p) => name(p) !== name(a))));
  });

  it('title_filters keep titles matching any filter; title_lists filter nothing', () => {
    const filters = ['Engineer', 'Director OR Head', 'Manager AND NOT Product'];
    const result = search({
      domain: big.domain,
      title_filters: filters.map((filter, i) => ({ name: `f${i}`, filter })),
      page_size: 250,
    });
    const tests = filters.map((f) => compileTitleFilter(f));
    expect(ids(result.persons)).toEqual(ids(staff.filter((p) => tests.some((t) => t(p.title!)))));
    expect(result.total).toBeGreaterThan(0);
    expect(result.total).toBeLessThan(staff.length);
    const single = search({
      ...everyRange,
      title_filters: [{ name: 'one', filter: 'Engineer OR Director' }],
    });
    const pair = search({
      ...everyRange,
      title_filters: [
        { name: 'a', filter: 'Engineer' },
        { name: 'b', filter: 'Director' },
      ],
    });
    expect(pair.total).toBe(single.total);
    const withLists = search({ domain: big.domain, title_lists: [{ id: 'x' }], page_size: 250 });
    expect(ids(withLists.persons)).toEqual(ids(staff));
  });
});

describe('world.searchContacts: paging', () => {
  const request = { ...everyRange, ...anyTitle };

  it('pages are consecutive, disjoint slices of one stable order', () => {
    const whole = search({ ...request, page_size: 250 });
    expect(whole.total).toBeGreaterThan(60);
    const pages = [1, 2, 3, 4, 5, 6].map((page_number) => search({ ...request, page_number, page_size: 10 }));
    for (const page of pages) expect(page.total).toBe(whole.total);
    const paged = pages.flatMap((page) => ids(page.persons));
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged).toEqual(ids(whole.persons).slice(0, 60));
    expect(search({ ...request, page_number: 3, page_size: 10 })).toEqual(pages[2]);
  });

  it('a page past the end is empty but keeps the total', () => {
    const result = search({ domain: big.domain, page_number: 100, page_size: 250 });
    expect(result.persons).toEqual([]);
    expect(result.total).toBe(staff.length);
    expect(search({ domain: big.domain }).persons).toHaveLength(10);
  });
});

describe('world.searchContacts: output', () => {
  const country = fc.constantFrom(...world.countries);
  const industry = fc.constantFrom(...world.industries);
  const titleWord = fc.constantFrom(
    'Engineer',
    'Manager',
    'Director',
    'Sales',
    'Marketing',
    'Chief',
    'Founder',
  );
  const filters = fc.record(
    {
      seniorities: fc.subarray([...SENIORITIES], { minLength: 1 }),
      departments: fc.subarray([...DEPARTMENTS], { minLength: 1 }),
      location_countries: fc.array(country, { minLength: 1, maxLength: 3 }),
      page_number: fc.integer({ min: 1, max: 4 }),
      page_size: fc.integer({ min: 1, max: 50 }),
    },
    { requiredKeys: [] },
  );
  const mode = fc.oneof(
    fc.constantFrom(...world.companies.slice(0, 30)).map((c) => ({ domain: c.domain })),
    fc.stringMatching(/^[a-z]{3,12}\.(com|io|de)$/).map((domain) => ({ domain })),
    fc.stringMatching(/^[a-z][a-z0-9-]{2,20}$/).map((contact_linkedin) => ({ contact_linkedin })),
    fc
      .record(
        {
          company_location_countries: fc.array(country, { minLength: 1, maxLength: 3 }),
          company_industries: fc.array(industry, { minLength: 1, maxLength: 5 }),
          company_employee_ranges: fc.subarray([...EMPLOYEE_RANGES], { minLength: 1 }),
        },
        { requiredKeys: [] },
      )
      .filter((set) => Object.keys(set).length > 0)
      .chain((set) =>
        fc
          .record({
            experience_start_date: fc.constantFrom('2010-01-01', '2022-06-15'),
            words: fc.array(titleWord, { minLength: 1, maxLength: 3 }),
          })
          .map(({ experience_start_date, words }) => ({
            ...set,
            experience_start_date,
            title_filters: [{ name: 't', filter: words.join(' OR ') }],
          })),
      ),
  );

  it('every answer parses as a Search Contact output and honours page_size', () => {
    fc.assert(
      fc.property(mode, filters, (modeFields, filterFields) => {
        const request: SearchContactRequestInput = { ...modeFields, ...filterFields };
        const result = search(request);
        const parsed = searchContactOutputSchema.safeParse({ persons: result.persons, usage: USAGE });
        expect(parsed.error?.issues ?? []).toEqual([]);
        expect(result.persons.length).toBeLessThanOrEqual(filterFields.page_size ?? 10);
        expect(result.total).toBeGreaterThanOrEqual(result.persons.length);
        for (const p of result.persons) {
          if (filterFields.seniorities) expect(filterFields.seniorities).toContain(p.seniority);
          if (filterFields.departments) expect(filterFields.departments).toContain(p.department);
          if (filterFields.location_countries) expect(filterFields.location_countries).toContain(p.country);
        }
        expect(search(request)).toEqual(result);
      }),
      { seed: 77, numRuns: 60 },
    );
  });
});

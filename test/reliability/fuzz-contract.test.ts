/**
 * Fuzz of the contract (issue 7, part 3): arbitrary Search Contact requests, title filters and the other
 * launch requests are either accepted or refused with a typed ValidationError carrying one of the
 * interface's VALIDATION_* codes; never any other exception. Seeded; sizes from reliability-scale.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEPARTMENTS, EMPLOYEE_RANGES, SENIORITIES } from '../../src/contract/enums.js';
import {
  parseCompanyRevealRequest,
  parseJobChangeRequest,
  parseSearchContactRequest,
} from '../../src/contract/requests.js';
import { parseTitleFilter } from '../../src/contract/title-filter.js';
import { ERROR_CODES, ValidationError } from '../../src/errors.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import { RELIABILITY_SCALE as SCALE } from '../helpers/reliability-scale.js';

const RUNS = { seed: 20_261_107, numRuns: SCALE.fuzzRuns };
const VALIDATION_CODES = new Set(ERROR_CODES.filter((c) => c.startsWith('VALIDATION_')));

/** Outcome of a parser on one input: accepted, or the code of its ValidationError; anything else throws. */
function outcome(parse: () => unknown): string {
  try {
    parse();
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    expect(VALIDATION_CODES.has(error.code), error.code).toBe(true);
    expect(error.issues.length).toBeLessThanOrEqual(10);
    return error.code;
  }
}

const PIECES = ['AND', 'OR', 'NOT', '(', ')', 'CEO', 'Head of Sales', 'VP', 'and', 'R&D', 'Général', ''];
/** Title filters: the language's own pieces joined every which way, and arbitrary text. */
const titleFilter = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 14 }).map((p) => p.join(' ')),
  fc.array(fc.constantFrom(...PIECES, ' ', '  ', '\t'), { maxLength: 20 }).map((p) => p.join('')),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

const anyJson = fc.jsonValue({ maxDepth: 2 });
const date = fc
  .date({ min: new Date('1900-01-01'), max: new Date('2100-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const fullName = fc
  .tuple(fc.constantFrom('Ann', 'Bo', 'Zoë', "O'Neil"), fc.constantFrom('Lee', 'Smith-Jones', 'Ødegård'))
  .map(([a, b]) => `${a} ${b}`);
const country = fc.constantFrom('France', 'Japan', 'United States');
const someOf = <T>(item: fc.Arbitrary<T>, max: number) =>
  fc.oneof(fc.array(item, { maxLength: Math.min(max, 4) }), fc.constant(null));
const filterItem = fc.record({ name: fc.string({ maxLength: 20 }), filter: titleFilter });

/** The fields any mode may carry, with plausible values (title filters aside, which are wild). */
const commonFields = fc.record(
  {
    excluded_names: someOf(fullName, 200),
    included_names: someOf(fullName, 100),
    departments: someOf(fc.constantFrom(...DEPARTMENTS), 14),
    seniorities: someOf(fc.constantFrom(...SENIORITIES), 9),
    location_countries: someOf(country, 50),
    page_number: fc.integer({ min: 1, max: 100 }),
    page_size: fc.integer({ min: 1, max: 250 }),
    webhook_url: fc.option(fc.webUrl()),
    custom_fields: fc.option(
      fc.dictionary(
        fc.constantFrom('crm_id', 'lead-1', 'x_y'),
        fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean()),
        { maxKeys: 3 },
      ),
    ),
  },
  { requiredKeys: [] },
);

/** One mode's fields (Search mode rules). */
const modeFields = fc.oneof(
  fc.record({ contact_linkedin: fc.constantFrom('https://www.linkedin.com/in/ann-lee', 'ann-lee') }),
  fc.record(
    {
      domain: fc.oneof(fc.domain(), fc.webUrl()),
      company_linkedin: fc.constantFrom('https://www.linkedin.com/company/acme', 'acme'),
      company_name: fc.constantFrom('Acme', 'Globex Corporation'),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      company_location_countries: fc.array(country, { minLength: 1, maxLength: 3 }),
      company_industries: fc.array(fc.constantFrom('Software Development', 'Banking'), { maxLength: 3 }),
      company_employee_ranges: fc.array(fc.constantFrom(...EMPLOYEE_RANGES), { maxLength: 3 }),
      experience_start_date: fc.option(date),
      experience_start_date_new_hire: fc.option(date),
      title_filters: fc.array(filterItem, { maxLength: 5 }),
      title_lists: fc.array(fc.dictionary(fc.string({ maxLength: 5 }), anyJson, { maxKeys: 3 }), {
        maxLength: 5,
      }),
    },
    { requiredKeys: ['company_location_countries'] },
  ),
);

const FIELD_NAMES = [
  'contact_linkedin',
  'domain',
  'company_linkedin',
  'company_name',
  'excluded_names',
  'included_names',
  'title_filters',
  'title_lists',
  'departments',
  'seniorities',
  'location_countries',
  'company_location_countries',
  'company_industries',
  'company_employee_ranges',
  'experience_start_date',
  'experience_start_date_new_hire',
  'page_number',
  'page_size',
  'webhook_url',
  'custom_fields',
];
/** What a broken field holds: anything JSON, strings off their length limits, lists past their caps. */
const wildValue = fc.oneof(
  anyJson,
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('', ' ', 'x'.repeat(501), 'x'.repeat(2084), 0, -1, 1.5, 101, 251, '2026-02-30'),
  fc.array(fc.string({ maxLength: 300 }), { minLength: 0, maxLength: 210 }),
  fc.array(fc.constantFrom(...EMPLOYEE_RANGES, 'Director', 'x'), { minLength: 6, maxLength: 60 }),
);

/** Plausible requests (one mode, sometimes two), then a few fields broken at random. */
const searchContactRequest = fc
  .tuple(
    commonFields,
    modeFields,
    fc.option(modeFields, { freq: 6 }),
    fc.array(fc.tuple(fc.constantFrom(...FIELD_NAMES), wildValue), { maxLength: 3 }),
  )
  .map(([common, mode, extra, broken]) => ({
    ...common,
    ...(extra ?? {}),
    ...mode,
    ...Object.fromEntries(broken),
  }));

describe(`the contract under arbitrary requests (${SCALE.fuzzRuns} cases per property, ${SCALE.mode})`, () => {
  it(
    'answers a Search Contact request built from its fields with acceptance or a ValidationError',
    () => {
      const seen = new Map<string, number>();
      fc.assert(
        fc.property(searchContactRequest, (request) => {
          const code = outcome(() => parseSearchContactRequest(request));
          seen.set(code, (seen.get(code) ?? 0) + 1);
        }),
        RUNS,
      );
      recordReliabilityFigures('fuzz-contract-search-contact-outcomes', Object.fromEntries(seen));
      // The generator must reach both sides, or the property says little.
      expect(seen.get('accepted') ?? 0).toBeGreaterThan(0);
      expect(seen.size).toBeGreaterThan(3);
    },
    SCALE.fuzzTimeoutMs,
  );

  it(
    'answers any value at all, as any of the three launch requests, with acceptance or a ValidationError',
    () => {
      fc.assert(
        fc.property(
          fc.anything({ maxDepth: 3, withBigInt: true, withDate: true, withMap: true }),
          (value) => {
            outcome(() => parseSearchContactRequest(value));
            outcome(() => parseCompanyRevealRequest(value));
            outcome(() => parseJobChangeRequest(value));
          },
        ),
        RUNS,
      );
    },
    SCALE.fuzzTimeoutMs,
  );

  it(
    'parses any title filter text or refuses it with a VALIDATION_BAD_TITLE_FILTER code',
    () => {
      let accepted = 0;
      fc.assert(
        fc.property(titleFilter, (filter) => {
          const code = outcome(() => parseTitleFilter(filter));
          if (code === 'accepted') accepted += 1;
          else expect(code.startsWith('VALIDATION_BAD_TITLE_FILTER'), code).toBe(true);
        }),
        RUNS,
      );
      expect(accepted).toBeGreaterThan(0);
    },
    SCALE.fuzzTimeoutMs,
  );
});

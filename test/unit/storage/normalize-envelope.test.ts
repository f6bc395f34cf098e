import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JOB_KINDS } from '../../../src/contract/enums.js';
import { detectJobKind } from '../../../src/contract/job-kind.js';
import { parseJsonText } from '../../../src/contract/json.js';
import { readCompanyReveal } from '../../../src/storage/normalize-company.js';
import { normalizeEnvelope } from '../../../src/storage/normalize-envelope.js';
import { findPreviousRole } from '../../../src/storage/normalize-job-change.js';
import { experiencesAt } from '../../../src/storage/normalize-persons.js';
import {
  companyRevealEmptyText,
  companyRevealText,
  jobChangeText,
  searchContactText,
  testUuid,
  unknownKindText,
} from './envelope-texts.js';

const AT = '2026-03-04T10:00:00.000Z';
const ID = testUuid(1);
const FIXTURES = join(import.meta.dirname, '../../fixtures/envelopes');

function normalize(text: string) {
  const envelope = parseJsonText(text);
  return normalizeEnvelope(envelope, detectJobKind(envelope), ID, AT);
}

describe('normalizeEnvelope', () => {
  it('maps a Company Reveal to one companies row, int64 as digits', () => {
    const rows = normalize(companyRevealText(ID));
    expect(rows.persons).toEqual([]);
    expect(rows.jobChanges).toEqual([]);
    expect(rows.companies).toEqual([
      {
        job_id: ID,
        company_id: testUuid(7, 'c0000000'),
        domain: 'acme.example',
        name: 'Acme "Rockets" GmbH',
        custom_fields: '{"crm_id":"café","n":1}',
        received_at: AT,
      },
    ]);
    expect(readCompanyReveal(parseJsonText(companyRevealText(ID)))).toEqual({
      ip: '203.0.113.7',
      ip_type: 'company',
      confidence_score: 'high',
      ip_geo_city: 'München',
      ip_geo_state: 'Bavaria',
      ip_geo_country: 'Germany',
      company_id: testUuid(7, 'c0000000'),
      domain: 'acme.example',
      name: 'Acme "Rockets" GmbH',
      website: 'https://acme.example',
      linkedin_id: 'acme-rockets',
      description: 'Line one\nline two ☃',
      logo_url: 'https://acme.example/logo.png',
      size: '1001-5000',
      employees_count: 1234,
      industry: 'Aerospace',
      company_type: 'Privately Held',
      founded: 1999,
      address: '1 Rocket Road',
      country: 'Germany',
      linkedin_url: 'https://www.linkedin.com/company/acme-rockets',
      linkedin_followers: 4321,
      crunchbase_url: null,
      recent_job_posting_count: 12,
      total_funding_rounds: 2,
      total_funding_usd: '9007199254740993',
      technologies: '["React","Kysely"]',
      funding_rounds:
        '[{"round_name":"Series A","round_date":"2020-01-31","investor_count":3,"amount_raised_usd":9007199254740993,"investor_names":["Ann Ventures","Bob Capital"]}]',
    });
  });

  it('keeps ip, type, confidence and geo when the company is {}', () => {
    const row = readCompanyReveal(parseJsonText(companyRevealEmptyText(ID)));
    expect(row).toMatchObject({
      ip: '198.51.100.1',
      ip_type: 'isp',
      confidence_score: 'low',
      ip_geo_country: 'France',
    });
    expect(row).toMatchObject({
      company_id: null,
      name: null,
      employees_count: null,
      total_funding_usd: null,
    });
    expect(row).toMatchObject({ technologies: '[]', funding_rounds: '[]' });
  });

  it('maps a moved Job Change to a person and a job_changes row with the previous role', () => {
    const rows = normalize(jobChangeText(ID));
    expect(rows.persons).toHaveLength(1);
    expect(rows.persons[0]).toMatchObject({
      position: 0,
      source_kind: 'job_change',
      person_id: testUuid(9, 'b0000000'),
      first_name: 'Zoë',
      company_id: null,
      title: 'VP Sales',
    });
    expect(rows.persons[0]).not.toHaveProperty('experiences');
    expect(JSON.parse(experiencesAt(parseJsonText(jobChangeText(ID)), 0) ?? 'null')).toHaveLength(3);
    expect(rows.jobChanges).toEqual([
      {
        job_id: ID,
        job_change_status: 'moved',
        contact_linkedin: 'https://www.linkedin.com/in/zoe-oneil',
        contact_full_name: "Zoë O'Neil",
        company_domain: 'oldco.example',
        company_linkedin: null,
        professional_email: 'zoe@oldco.example',
        personal_email: null,
        person_id: testUuid(9, 'b0000000'),
        first_name: 'Zoë',
        last_name: "O'Neil",
        linkedin_url: 'https://www.linkedin.com/in/zoe-oneil',
        new_title: 'VP Sales',
        new_company_name: 'NewCo',
        new_company_domain: 'newco.example',
        new_company_linkedin_id: 'new-co',
        previous_title: 'Sales Director',
        previous_company_name: 'OldCo',
        previous_company_domain: 'oldco.example',
        custom_fields: '{"hubspot_id":"42"}',
        received_at: AT,
      },
    ]);
  });

  it('writes no person for a no_change Job Change, and no rows for a RUNNING one without output', () => {
    const noChange = normalize(jobChangeText(ID, { change: 'no_change' }));
    expect(noChange.persons).toEqual([]);
    expect(noChange.jobChanges).toHaveLength(1);
    expect(noChange.jobChanges[0]).toMatchObject({ job_change_status: 'no_change', new_title: null });
    const running = normalize(jobChangeText(ID, { status: 'RUNNING', withoutOutput: true }));
    expect(running).toEqual({ persons: [], companies: [], jobChanges: [], personTexts: [] });
  });

  it('maps each person of a Search Contact page at its index', () => {
    const rows = normalize(searchContactText(ID, 250));
    expect(rows.persons).toHaveLength(250);
    expect(rows.persons.map((p) => p.position)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(rows.persons[249]).toMatchObject({
      source_kind: 'search_contact',
      first_name: 'Person249',
      company_id: testUuid(5, 'c0000000'),
      seniority: 'Director',
      department: 'Sales',
    });
  });

  it('skips persons that are not objects but keeps the others at their index', () => {
    const envelope = { input: { task: { job_id: ID } }, output: { persons: [null, { first_name: 'A' }, 3] } };
    const rows = normalizeEnvelope(envelope, 'search_contact', ID, AT);
    expect(rows.persons.map((p) => [p.position, p.first_name])).toEqual([[1, 'A']]);
  });

  it('gives no rows for an unknown kind', () => {
    expect(normalize(unknownKindText(ID))).toEqual({
      persons: [],
      companies: [],
      jobChanges: [],
      personTexts: [],
    });
  });

  it('turns wrong types into nulls: out-of-range int32, non-integer int64, U+0000 dropped', () => {
    const envelope = {
      output: {
        ip: 'a\u0000b',
        ip_geo: 'nowhere',
        company: {
          employees_count: 2 ** 31,
          founded: 1999.5,
          linkedin_followers: -(2 ** 31),
          funding_details: { total_funding_usd: 1.5, funding_rounds: 'none' },
          technologies: { a: 1 },
          name: 42,
        },
      },
    };
    const row = readCompanyReveal(envelope);
    expect(row).toMatchObject({
      ip: 'ab',
      ip_geo_city: null,
      employees_count: null,
      founded: null,
      linkedin_followers: -(2 ** 31),
      total_funding_usd: null,
      funding_rounds: '[]',
      technologies: '[]',
      name: '42',
    });
  });

  it('normalizes every shared fixture envelope', () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const envelope = parseJsonText(readFileSync(join(FIXTURES, file), 'utf8')) as {
        output?: { persons?: unknown[]; person?: object };
      };
      const kind = detectJobKind(envelope);
      const rows = normalizeEnvelope(envelope, kind, ID, AT);
      if (kind === 'search_contact')
        expect(rows.persons).toHaveLength(envelope.output?.persons?.length ?? -1);
      if (kind === 'company_reveal') expect(rows.companies).toHaveLength(1);
      if (kind === 'job_change') {
        expect(rows.jobChanges).toHaveLength(1);
        expect(rows.persons).toHaveLength(Object.keys(envelope.output?.person ?? {}).length > 0 ? 1 : 0);
      }
    }
  });

  it('never throws, whatever the envelope holds', () => {
    const envelopeLike = fc.record(
      {
        status: fc.jsonValue(),
        input: fc.oneof(fc.record({ task: fc.jsonValue() }), fc.jsonValue()),
        output: fc.oneof(
          fc.record(
            {
              persons: fc.oneof(fc.array(fc.dictionary(fc.string(), fc.jsonValue())), fc.jsonValue()),
              person: fc.dictionary(fc.string(), fc.jsonValue()),
              company: fc.dictionary(fc.string(), fc.jsonValue()),
              ip_geo: fc.jsonValue(),
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(envelopeLike, fc.anything()), fc.constantFrom(...JOB_KINDS), (envelope, kind) => {
        const rows = normalizeEnvelope(envelope, kind, ID, AT);
        for (const row of [...rows.persons, ...rows.companies, ...rows.jobChanges]) {
          for (const value of Object.values(row)) {
            expect(['string', 'number', 'object']).toContain(typeof value);
            if (typeof value === 'string') expect(value.includes('\u0000')).toBe(false);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('findPreviousRole', () => {
  it('picks the past role that ended last, whatever the order', () => {
    const previous = findPreviousRole([
      { title: 'A', is_current: false, end_date: '2019-01-31' },
      { title: 'Now', is_current: true, start_date: '2024-01-01' },
      { title: 'B', is_current: false, end_year: 2022, end_month: 3 },
      { title: 'C', is_current: false, end_date: '2021-12-31' },
    ]);
    expect(previous?.title).toBe('B');
  });

  it('falls back on the start date, keeps the first of a tie, and ignores current roles', () => {
    expect(
      findPreviousRole([
        { title: 'X', is_current: false, start_date: '2015-01-01' },
        { title: 'Y', is_current: false, start_year: 2016 },
        { title: 'Z', is_current: false, start_year: 2016 },
      ])?.title,
    ).toBe('Y');
    expect(findPreviousRole([{ title: 'Now', is_current: true }])).toBeUndefined();
    expect(findPreviousRole('nope')).toBeUndefined();
    expect(findPreviousRole([{ title: 'Unknown', is_current: null }])).toBeUndefined();
  });
});

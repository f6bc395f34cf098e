/**
 * Arbitrary strings, stored through the job store, through every built-in template: every export parses
 * back with csv-parse, no cell starts a formula (plain numbers aside), and the generic templates give back
 * the stored values once the guard is undone.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startsFormula, unguardFormula } from '../../../src/export/formula-guard.js';
import { type ExportTestDatabase, openExportTestDatabase, storeEnvelopes } from './export-database.js';
import { BUILT_IN_TEMPLATES, exportText, parseCsv } from './export-suite.js';

const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r', '\n', '＝', '＋', '－', '＠', '\u2212', ' =', "'="];
const text = fc.oneof(
  fc.string({ unit: 'grapheme-composite', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }).map((s) => s.replace(/\0/g, '')),
  fc.tuple(fc.constantFrom(...FORMULA_STARTS), fc.string({ maxLength: 10 })).map(([a, b]) => a + b),
  fc.constantFrom('-3', '+33 1 23 45 67 89', '1.5e3', 'a,b', '"q"', 'x\r\ny', 'null', ''),
);
const maybe = fc.option(text, { nil: null });

const personArb = fc.record({
  first_name: maybe,
  last_name: maybe,
  about: maybe,
  location: maybe,
  country: maybe,
  company_name: maybe,
  company_domain: maybe,
  title: maybe,
  seniority: maybe,
  department: maybe,
  linkedin_url: maybe,
});
const companyArb = fc.record({
  name: text,
  domain: text,
  website: text,
  description: maybe,
  industry: maybe,
  address: text,
  country: maybe,
  technologies: fc.array(text, { maxLength: 3 }),
});

function searchContact(persons: ReadonlyArray<Record<string, string | null>>): string {
  const job_id = randomUUID();
  return JSON.stringify({
    status: 'SUCCEEDED',
    start_date: '2026-03-01T00:00:00.000000+00:00',
    stop_date: '2026-03-01T00:00:01.000000+00:00',
    input: { task: { domain: 'x.example', custom_fields: {}, job_id, context_id: randomUUID() } },
    output: { persons: persons.map((p) => ({ id: randomUUID(), ...p, experiences: [] })), usage: {} },
  });
}

function reveal(company: Record<string, unknown>): string {
  const job_id = randomUUID();
  return JSON.stringify({
    status: 'SUCCEEDED',
    start_date: '2026-03-01T00:00:00.000000+00:00',
    input: {
      task: { ip: '192.0.2.1', webhook_url: null, custom_fields: {}, job_id, context_id: randomUUID() },
    },
    output: {
      ip: '192.0.2.1',
      type: 'company',
      ip_geo: {},
      company: { id: randomUUID(), ...company },
      usage: {},
    },
  });
}

function jobChange(
  person: Record<string, string | null>,
  task: Record<string, string | null>,
  moved: boolean,
): string {
  const job_id = randomUUID();
  return JSON.stringify({
    status: 'SUCCEEDED',
    start_date: '2026-03-01T00:00:00.000000+00:00',
    input: { task: { ...task, custom_fields: {}, job_id, context_id: randomUUID() } },
    output: {
      job_change_status: moved ? 'moved' : 'left',
      person: {
        id: randomUUID(),
        ...person,
        experiences: [{ title: person.title, company_name: task.contact_full_name, is_current: false }],
      },
      usage: {},
    },
  });
}
const taskArb = fc.record({
  contact_full_name: maybe,
  contact_linkedin: maybe,
  professional_email: maybe,
  company_domain: maybe,
});

describe('arbitrary strings through every template', () => {
  let t: ExportTestDatabase;
  beforeAll(async () => {
    t = await openExportTestDatabase();
    const persons = fc.sample(fc.array(personArb, { minLength: 1, maxLength: 6 }), {
      seed: 20260310,
      numRuns: 25,
    });
    const companies = fc.sample(companyArb, { seed: 20260311, numRuns: 40 });
    const changes = fc.sample(fc.tuple(personArb, taskArb, fc.boolean()), { seed: 20260312, numRuns: 30 });
    await storeEnvelopes(t.database, [
      ...persons.map(searchContact),
      ...companies.map(reveal),
      ...changes.map(([person, task, moved]) => jobChange(person, task, moved)),
    ]);
  });
  afterAll(async () => t?.dispose());

  it.each(BUILT_IN_TEMPLATES)('%s parses back and starts no formula', async (name) => {
    const rows = parseCsv(await exportText(t, name, { all: true }));
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      expect(row).toHaveLength(rows[0]?.length ?? -1);
      for (const cell of row) expect(startsFormula(cell), JSON.stringify(cell)).toBe(false);
    }
  });

  it('gives back the stored values from the generic templates', async () => {
    const persons = parseCsv(await exportText(t, 'persons', { all: true }));
    const header = persons[0] ?? [];
    const stored = await t.database.db.selectFrom('persons').selectAll().execute();
    expect(persons.length - 1).toBe(stored.length);
    expect(stored.some((p) => p.source_kind === 'job_change')).toBe(true);
    const byId = new Map(persons.slice(1).map((r) => [r[0], r]));
    for (const person of stored) {
      const row = byId.get(person.person_id ?? '');
      for (const field of [
        'first_name',
        'last_name',
        'about',
        'location',
        'title',
        'company_name',
      ] as const) {
        expect(unguardFormula(row?.[header.indexOf(field)] ?? '<missing>')).toBe(person[field] ?? '');
      }
    }
    const companies = parseCsv(await exportText(t, 'companies', { all: true }));
    const storedCompanies = await t.database.db.selectFrom('companies').selectAll().execute();
    const byCompany = new Map(companies.slice(1).map((r) => [r[0], r]));
    for (const company of storedCompanies) {
      const row = byCompany.get(company.company_id ?? '');
      expect(unguardFormula(row?.[1] ?? '<missing>')).toBe(company.name ?? '');
      expect(unguardFormula(row?.[6] ?? '<missing>')).toBe(company.description ?? '');
    }
  });
});

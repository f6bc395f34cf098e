/**
 * Cases for the export fuzz: arbitrary strings in the three kinds of envelope (a Search Contact page, a
 * Company Reveal, a Job Change), and the rows the generic templates must give back for them.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';

const FORMULA_STARTS = [
  '=',
  '+',
  '-',
  '@',
  '\t',
  '\r',
  '\n',
  '＝',
  '＋',
  '－',
  '＠',
  '\u2212',
  ' =',
  "'=",
  "''+",
  '\u3000@',
];
/** Strings a data service could send: any code point (U+0000 too), formula starts, CSV's own characters. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 30 }),
  fc.tuple(fc.constantFrom(...FORMULA_STARTS), fc.string({ maxLength: 12 })).map(([a, b]) => a + b),
  fc.constantFrom(
    '',
    '-3',
    '+33 1 23 45 67 89',
    '1.5e3',
    'a,b',
    '"q"',
    'x\r\ny',
    '\r',
    '\n\n',
    ' ',
    'null',
    '\uFEFFx',
  ),
);
const maybe = fc.option(text, { nil: null });

/** The person fields a case sends; the persons template has a column of the same name for each. */
const PERSON_FIELDS = [
  'first_name',
  'last_name',
  'title',
  'about',
  'location',
  'country',
  'company_name',
  'company_domain',
  'linkedin_url',
  'seniority',
  'department',
] as const;
type PersonFields = Record<(typeof PERSON_FIELDS)[number], string | null>;
/** The same fields as the job-changes template's person.* columns (it has no person.about). */
const JOB_CHANGE_PERSON_FIELDS = PERSON_FIELDS.filter((f) => f !== 'about');

const person: fc.Arbitrary<PersonFields> = fc.record(
  Object.fromEntries(PERSON_FIELDS.map((f) => [f, maybe])) as Record<keyof PersonFields, typeof maybe>,
);
const company = fc.record({
  name: text,
  domain: text,
  website: text,
  description: maybe,
  industry: maybe,
  address: text,
  country: maybe,
  technologies: fc.array(text, { maxLength: 3 }),
});
const task = fc.record({
  contact_full_name: maybe,
  contact_linkedin: maybe,
  professional_email: maybe,
  personal_email: maybe,
  company_domain: maybe,
});

/** One case: a Search Contact page of 1 to 6 persons, a company, a person who moved or left. */
export const exportCaseArb = fc.record({
  persons: fc.array(person, { minLength: 1, maxLength: 6 }),
  company,
  changed: person,
  task,
  status: fc.constantFrom('moved', 'left'),
  crm_id: text,
});

export type ExportCase = typeof exportCaseArb extends fc.Arbitrary<infer T> ? T : never;

/** Rows a template must give back: matched on the `key` column, compared on each row's columns. */
export interface ExpectedExport {
  readonly key: string;
  readonly rows: ReadonlyArray<Readonly<Record<string, string>>>;
}

const IP = '192.0.2.1';

/** What the store keeps of a sent string: U+0000 dropped by design (normalize-values.ts), null as empty. */
function kept(value: string | null): string {
  return (value ?? '').replaceAll('\u0000', '');
}

function personColumns(
  p: PersonFields,
  fields: ReadonlyArray<keyof PersonFields> = PERSON_FIELDS,
  prefix = '',
): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [prefix + f, kept(p[f])]));
}

function envelope(
  jobId: string,
  taskFields: Record<string, unknown>,
  output: Record<string, unknown>,
): string {
  return JSON.stringify({
    status: 'SUCCEEDED',
    start_date: '2026-11-22T12:00:00.000000+00:00',
    stop_date: '2026-11-22T12:00:01.000000+00:00',
    input: { task: { ...taskFields, job_id: jobId, context_id: randomUUID() } },
    output: { ...output, usage: {} },
  });
}

/**
 * The envelope texts of a case, and what the persons, companies and job-changes templates must give back
 * for them (every status, every occurrence) once stored at `receivedAt`.
 */
export function exportCase(
  c: ExportCase,
  receivedAt: string,
): { texts: string[]; expected: Record<'persons' | 'companies' | 'job-changes', ExpectedExport> } {
  const searchJob = randomUUID();
  const revealJob = randomUUID();
  const changeJob = randomUUID();
  const companyId = randomUUID();
  const changedId = randomUUID();
  const persons = c.persons.map((p) => ({ id: randomUUID(), ...p, experiences: [] }));
  const texts = [
    envelope(searchJob, { domain: 'x.example', custom_fields: { crm_id: c.crm_id } }, { persons }),
    envelope(
      revealJob,
      { ip: IP, webhook_url: null, custom_fields: {} },
      { ip: IP, type: 'company', ip_geo: {}, company: { id: companyId, ...c.company } },
    ),
    envelope(
      changeJob,
      { ...c.task, custom_fields: { crm_id: c.crm_id } },
      {
        job_change_status: c.status,
        person: {
          id: changedId,
          ...c.changed,
          experiences: [
            { title: c.changed.title, company_name: c.task.contact_full_name, is_current: false },
          ],
        },
      },
    ),
  ];

  const previous = {
    previous_title: kept(c.changed.title),
    previous_company_name: kept(c.task.contact_full_name),
  };
  const expected = {
    persons: {
      key: 'id',
      rows: [
        ...persons.map((p) => ({
          id: p.id,
          ...personColumns(p),
          job_id: searchJob,
          kind: 'search_contact',
          job_change_status: '',
          previous_title: '',
          previous_company_name: '',
          received_at: receivedAt,
        })),
        {
          id: changedId,
          ...personColumns(c.changed),
          ...previous,
          job_id: changeJob,
          kind: 'job_change',
          job_change_status: c.status,
          received_at: receivedAt,
        },
      ],
    },
    companies: {
      key: 'id',
      rows: [
        {
          id: companyId,
          name: kept(c.company.name),
          domain: kept(c.company.domain),
          website: kept(c.company.website),
          description: kept(c.company.description),
          industry: kept(c.company.industry),
          address: kept(c.company.address),
          country: kept(c.company.country),
          // Arrays are stored as JSON text, which keeps U+0000 (text columns drop it).
          technologies: c.company.technologies.filter((s) => s !== '').join('; '),
          ip: IP,
          ip_type: 'company',
          job_id: revealJob,
          received_at: receivedAt,
        },
      ],
    },
    'job-changes': {
      key: 'job_id',
      rows: [
        {
          job_id: changeJob,
          job_change_status: c.status,
          contact_linkedin: kept(c.task.contact_linkedin),
          contact_full_name: kept(c.task.contact_full_name),
          company_domain: kept(c.task.company_domain),
          professional_email: kept(c.task.professional_email),
          personal_email: kept(c.task.personal_email),
          'person.id': changedId,
          ...personColumns(c.changed, JOB_CHANGE_PERSON_FIELDS, 'person.'),
          ...previous,
          received_at: receivedAt,
        },
      ],
    },
  };
  return { texts, expected };
}

/**
 * Fuzz of the export (issue 7, part 3): arbitrary strings, stored through the job store in the three
 * kinds of envelope, go through every built-in template and the CSV writer. No cell may start a formula,
 * and the CSV must parse back (csv-parse) to exactly the rows exportRows gave, guard aside. Each case gets
 * its own instant on the store's clock, so that each export reads that case's rows only.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRows, templateHeader } from '../../src/export/export-rows.js';
import { guardFormula, startsFormula, unguardFormula } from '../../src/export/formula-guard.js';
import { listTemplates, loadTemplate } from '../../src/export/load-template.js';
import type { ExportTemplate } from '../../src/export/parse-template.js';
import { writeCsv } from '../../src/export/write-csv.js';
import { createJobStore, type JobStore } from '../../src/storage/job-store.js';
import type { HooksyncDatabase } from '../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../src/storage/open-migrated-database.js';
import { RELIABILITY_SCALE as SCALE } from '../helpers/reliability-scale.js';

const RUNS = { seed: 20_261_109, numRuns: SCALE.fuzzRuns };
const START_MS = Date.UTC(2026, 10, 22, 12, 0, 0);

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
/** Strings a data service could send: any code point, formula starts, CSV's own characters. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 24 }),
  fc.tuple(fc.constantFrom(...FORMULA_STARTS), fc.string({ maxLength: 12 })).map(([a, b]) => a + b),
  fc.constantFrom(
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
const person = fc.record({
  first_name: maybe,
  last_name: maybe,
  title: maybe,
  about: maybe,
  location: maybe,
  country: maybe,
  company_name: maybe,
  company_domain: maybe,
  linkedin_url: maybe,
  seniority: maybe,
  department: maybe,
});
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
const caseArb = fc.record({
  persons: fc.array(person, { minLength: 1, maxLength: 3 }),
  company,
  changed: person,
  task,
  status: fc.constantFrom('moved', 'left'),
  crm_id: text,
});

type CaseValue = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function envelope(taskFields: Record<string, unknown>, output: Record<string, unknown>): string {
  return JSON.stringify({
    status: 'SUCCEEDED',
    start_date: '2026-11-22T12:00:00.000000+00:00',
    stop_date: '2026-11-22T12:00:01.000000+00:00',
    input: { task: { ...taskFields, job_id: randomUUID(), context_id: randomUUID() } },
    output: { ...output, usage: {} },
  });
}

/** The three envelopes of one case: a Search Contact page, a Company Reveal and a Job Change. */
function envelopesOf(c: CaseValue) {
  const persons = c.persons.map((p) => ({ id: randomUUID(), ...p, experiences: [] }));
  return {
    persons,
    texts: [
      envelope({ domain: 'x.example', custom_fields: { crm_id: c.crm_id } }, { persons }),
      envelope(
        { ip: '192.0.2.1', webhook_url: null, custom_fields: {} },
        { ip: '192.0.2.1', type: 'company', ip_geo: {}, company: { id: randomUUID(), ...c.company } },
      ),
      envelope(
        { ...c.task, custom_fields: { crm_id: c.crm_id } },
        {
          job_change_status: c.status,
          person: {
            id: randomUUID(),
            ...c.changed,
            experiences: [
              { title: c.changed.title, company_name: c.task.contact_full_name, is_current: false },
            ],
          },
        },
      ),
    ],
  };
}

function withoutNul(value: string | null): string {
  return (value ?? '').replaceAll('\u0000', '');
}

function sameCells(a: readonly string[][], b: readonly string[][]): boolean {
  return (
    a.length === b.length &&
    a.every((row, i) => row.length === b[i]!.length && row.every((c, j) => c === b[i]![j]))
  );
}

async function csvOf(template: ExportTemplate, rows: readonly string[][]): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeCsv(rows, sink, { header: templateHeader(template), dialect: template.dialect });
  return Buffer.concat(chunks).toString('utf8');
}

describe(`arbitrary strings through every export template (${SCALE.fuzzRuns} cases, ${SCALE.mode})`, () => {
  let dir: string;
  let database: HooksyncDatabase;
  let store: JobStore;
  let templates: ExportTemplate[];
  let clockMs = START_MS;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-export-fuzz-'));
    // Durability is not what this property is about: NORMAL spares an fsync per case.
    database = await openMigratedDatabase(join(dir, 'export.db'), { synchronous: 'NORMAL' });
    store = createJobStore({ database, now: () => clockMs });
    templates = await Promise.all((await listTemplates()).map((t) => loadTemplate(t.name)));
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'writes no cell that starts a formula, and every CSV parses back to the exported values',
    async () => {
      expect(templates.length).toBeGreaterThanOrEqual(10);
      const rowsPerTemplate = new Map<string, number>();
      let personsChecked = 0;
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          clockMs += 1000;
          const { persons, texts } = envelopesOf(c);
          await Promise.all(texts.map((envelopeText) => store.store({ envelopeText, source: 'webhook' })));
          const window = { since: new Date(clockMs), until: new Date(clockMs + 1) };
          for (const template of templates) {
            const rows: string[][] = [];
            for await (const row of exportRows(database.db, template, {
              ...window,
              all: true,
              jobChangeStatuses: 'all',
            })) {
              rows.push(row);
            }
            rowsPerTemplate.set(template.name, (rowsPerTemplate.get(template.name) ?? 0) + rows.length);
            const parsed: string[][] = parse(await csvOf(template, rows), { bom: true });
            const expected = [templateHeader(template), ...rows].map((r) => r.map(guardFormula));
            // Plain loops, and expect only on a failure: thousands of cells per case.
            if (!sameCells(parsed, expected)) expect(parsed).toEqual(expected);
            const problems: string[] = [];
            for (const [i, row] of parsed.entries()) {
              for (const [j, cell] of row.entries()) {
                if (startsFormula(cell))
                  problems.push(`${template.name} starts a formula: ${JSON.stringify(cell)}`);
                if (i > 0 && unguardFormula(cell) !== rows[i - 1]![j]) {
                  problems.push(`${template.name} does not unguard: ${JSON.stringify(cell)}`);
                }
              }
            }
            if (problems.length > 0) expect(problems).toEqual([]);
            if (template.name === 'persons') {
              // The strings arrive in the generic template (U+0000 dropped by design, normalize-values.ts):
              // the property is not vacuous.
              const header = templateHeader(template);
              const byId = new Map(rows.map((r) => [r[header.indexOf('id')], r]));
              for (const p of persons) {
                const row = byId.get(p.id);
                expect(row?.[header.indexOf('first_name')]).toBe(withoutNul(p.first_name));
                expect(row?.[header.indexOf('title')]).toBe(withoutNul(p.title));
                personsChecked += 1;
              }
            }
          }
        }),
        RUNS,
      );
      console.log('export fuzz rows per template:', Object.fromEntries(rowsPerTemplate));
      expect(personsChecked).toBeGreaterThan(0);
      for (const template of templates) {
        expect(rowsPerTemplate.get(template.name) ?? 0, template.name).toBeGreaterThan(0);
      }
    },
    SCALE.fuzzTimeoutMs,
  );
});

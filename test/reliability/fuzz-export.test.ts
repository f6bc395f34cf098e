/**
 * Fuzz of the export (issue 7, part 3): arbitrary strings, stored through the job store in the three
 * kinds of envelope, go through every built-in template as `hooksync export` writes it (runExport). No
 * cell may start a formula; every CSV must be byte for byte what writeCsv makes of exportRows' rows and
 * parse back (csv-parse) to exactly those rows, guard aside; and the generic templates must give back the
 * strings the envelopes carried. Each case gets its own instant on the store's clock, so that each export
 * reads that case's rows only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRows, templateHeader } from '../../src/export/export-rows.js';
import { guardFormula, startsFormula, unguardFormula } from '../../src/export/formula-guard.js';
import { listTemplates, loadTemplate } from '../../src/export/load-template.js';
import type { ExportTemplate } from '../../src/export/parse-template.js';
import { runExport } from '../../src/export/run-export.js';
import { writeCsv } from '../../src/export/write-csv.js';
import { createJobStore, type JobStore } from '../../src/storage/job-store/job-store.js';
import type { HooksyncDatabase } from '../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../src/storage/open-migrated-database.js';
import { type ExpectedExport, exportCase, exportCaseArb } from '../helpers/reliability-export-cases.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import { RELIABILITY_SCALE as SCALE } from '../helpers/reliability-scale.js';

const RUNS = { seed: 20_261_109, numRuns: SCALE.fuzzRuns };
const START_MS = Date.UTC(2026, 10, 22, 12, 0, 0);

function sameCells(a: readonly string[][], b: readonly string[][]): boolean {
  return (
    a.length === b.length &&
    a.every((row, i) => row.length === b[i]!.length && row.every((c, j) => c === b[i]![j]))
  );
}

async function collect(write: (sink: PassThrough) => Promise<unknown>): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  await write(sink);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One template over one case's window: checks the CSV against exportRows' rows and the formula guard,
 * and returns it parsed. Plain loops, and expect only on a failure: thousands of cells per case.
 */
async function exportAndCheck(
  db: HooksyncDatabase['db'],
  template: ExportTemplate,
  since: Date,
  until: Date,
): Promise<string[][]> {
  const selection = { since, all: true, jobChangeStatuses: 'all' } as const;
  const rows: string[][] = [];
  for await (const row of exportRows(db, template, { ...selection, until })) rows.push(row);
  // Nothing after `until` is stored yet, so runExport (which takes no `until`) reads the same window.
  let written = -1;
  const csv = await collect(async (stdout) => {
    written = (await runExport(db, template, { ...selection, out: '-', stdout })).rows;
  });
  // runExport guards in exportRows, writeCsv on its own guards as it writes: the same bytes either way.
  const direct = await collect((sink) =>
    writeCsv(rows, sink, { header: templateHeader(template), dialect: template.dialect }),
  );
  if (written !== rows.length) expect(written, template.name).toBe(rows.length);
  if (csv !== direct) expect(csv, template.name).toBe(direct);

  const parsed: string[][] = parse(csv, { bom: true });
  const expected = [templateHeader(template), ...rows].map((r) => r.map(guardFormula));
  if (!sameCells(parsed, expected)) expect(parsed).toEqual(expected);
  const problems: string[] = [];
  for (const [i, row] of parsed.entries()) {
    for (const [j, cell] of row.entries()) {
      if (startsFormula(cell)) problems.push(`${template.name} starts a formula: ${JSON.stringify(cell)}`);
      if (i > 0 && unguardFormula(cell) !== rows[i - 1]![j]) {
        problems.push(`${template.name} does not unguard: ${JSON.stringify(cell)}`);
      }
    }
  }
  if (problems.length > 0) expect(problems).toEqual([]);
  return parsed;
}

/** End to end: the parsed export, guard undone, holds exactly the expected rows (matched on the key). */
function expectSentValues(name: string, parsed: readonly string[][], expected: ExpectedExport): void {
  const [header = [], ...rows] = parsed;
  const records = rows.map((row) =>
    Object.fromEntries(header.map((h, j) => [h, unguardFormula(row[j] ?? '')])),
  );
  if (records.length !== expected.rows.length) expect(records, name).toHaveLength(expected.rows.length);
  const byKey = new Map(records.map((r) => [r[expected.key], r]));
  for (const want of expected.rows) {
    const row = byKey.get(want[expected.key]);
    const got = row && Object.fromEntries(Object.keys(want).map((k) => [k, row[k]]));
    if (!isDeepStrictEqual(got, want)) expect(got, `${name} ${want[expected.key]}`).toEqual(want);
  }
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
    'writes no cell that starts a formula, and every CSV reads back to the exported and the sent values',
    async () => {
      const names = templates.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['persons', 'companies', 'job-changes']));
      expect(names.length).toBeGreaterThanOrEqual(10);
      const rowsPerTemplate = new Map<string, number>();
      let rowsCompared = 0;
      await fc.assert(
        fc.asyncProperty(exportCaseArb, async (c) => {
          clockMs += 1000;
          const since = new Date(clockMs);
          const { texts, expected } = exportCase(c, since.toISOString());
          const stored = await Promise.all(
            texts.map((envelopeText) => store.store({ envelopeText, source: 'webhook' })),
          );
          expect(stored.map((s) => s.outcome)).toEqual(['stored', 'stored', 'stored']);
          for (const template of templates) {
            const parsed = await exportAndCheck(database.db, template, since, new Date(clockMs + 1));
            rowsPerTemplate.set(template.name, (rowsPerTemplate.get(template.name) ?? 0) + parsed.length - 1);
            if (Object.hasOwn(expected, template.name)) {
              const want = expected[template.name as keyof typeof expected];
              expectSentValues(template.name, parsed, want);
              rowsCompared += want.rows.length;
            }
          }
        }),
        RUNS,
      );
      recordReliabilityFigures('fuzz-export-rows-per-template', Object.fromEntries(rowsPerTemplate));
      // Not vacuous: every template wrote rows, and each case's persons, company and job change came back.
      expect(rowsCompared).toBeGreaterThanOrEqual(4 * SCALE.fuzzRuns);
      for (const name of names) expect(rowsPerTemplate.get(name) ?? 0, name).toBeGreaterThan(0);
    },
    SCALE.fuzzTimeoutMs,
  );
});

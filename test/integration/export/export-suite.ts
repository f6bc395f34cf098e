/**
 * The export suite, run on SQLite and on Postgres: golden files (the same bytes from both dialects),
 * reading exports back with csv-parse, deduplication, filters, user templates and --since-last.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExportQuery } from '../../../src/export/build-export-query.js';
import { compileTemplate } from '../../../src/export/compile-template.js';
import { exportJobRows, exportRows } from '../../../src/export/export-rows.js';
import { EXPORT_SOURCES } from '../../../src/export/export-sources.js';
import { unguardFormula } from '../../../src/export/formula-guard.js';
import { loadTemplate } from '../../../src/export/load-template.js';
import { runExport } from '../../../src/export/run-export.js';
import { normalizeQueuedJobs } from '../../../src/storage/job-store/normalization-queue.js';
import {
  EXPORT_FIXTURES,
  type ExportTestDatabase,
  FIXTURE_START_MS,
  FIXTURE_STEP_MS,
  openExportTestDatabase,
  readFixtureEnvelopes,
  storeEnvelopes,
} from './export-database.js';

/** Every built-in template, in name order. */
export const BUILT_IN_TEMPLATES = [
  'companies',
  'hubspot-companies',
  'hubspot-contacts',
  'job-changes',
  'persons',
  'pipedrive-organizations',
  'pipedrive-persons',
  'salesforce-accounts',
  'salesforce-contacts',
  'salesforce-leads',
];

/** Parses an export (either dialect) into rows of cells. */
export function parseCsv(text: string): string[][] {
  return parse(text, { bom: true, relax_column_count: false });
}

/** Collects a whole export to stdout as text. */
export async function exportText(
  t: ExportTestDatabase,
  name: string,
  options: Omit<Parameters<typeof runExport>[2], 'out' | 'stdout'> = {},
): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  await runExport(t.database.db, await loadTemplate(name), { ...options, out: '-', stdout: sink });
  return Buffer.concat(chunks).toString('utf8');
}

/** Registers the suite for one dialect. */
export function exportSuite(dialect: 'sqlite' | 'postgres'): void {
  describe('with the fixture envelopes', () => {
    let t: ExportTestDatabase;
    beforeAll(async () => {
      t = await openExportTestDatabase(dialect);
      await storeEnvelopes(
        t.database,
        (await readFixtureEnvelopes()).map((e) => e.text),
      );
    });
    afterAll(async () => t?.dispose());

    it.each(BUILT_IN_TEMPLATES)('%s writes its golden file, byte for byte', async (name) => {
      const out = join(t.dir, `${name}.csv`);
      const report = await runExport(t.database.db, await loadTemplate(name), { out });
      const actual = await readFile(out);
      const golden = join(EXPORT_FIXTURES, `${name}.csv`);
      // Golden files are written from SQLite only; Postgres must produce the very same bytes.
      if (process.env.UPDATE_GOLDEN === '1' && dialect === 'sqlite') await writeFile(golden, actual);
      expect(actual.toString('utf8')).toBe(await readFile(golden, 'utf8'));
      expect(report.rows).toBe(parseCsv(actual.toString('utf8')).length - 1);
    });

    it('reads back, with csv-parse, to the stored values (modulo the formula guard)', async () => {
      const rows = parseCsv(await exportText(t, 'persons', { all: true, jobChangeStatuses: 'all' }));
      const header = rows[0] ?? [];
      const stored = await t.database.db.selectFrom('persons').selectAll().execute();
      expect(rows.length - 1).toBe(stored.length + 2); // + the no_change and unknown job changes
      for (const person of stored) {
        const row = rows.find(
          (r) => r[header.indexOf('job_id')] === person.job_id && r[0] === (person.person_id ?? ''),
        );
        expect(row, `${person.job_id}/${person.position}`).toBeDefined();
        const cell = (name: string) => unguardFormula(row?.[header.indexOf(name)] ?? '<missing>');
        for (const name of [
          'first_name',
          'last_name',
          'location',
          'title',
          'company_name',
          'seniority',
        ] as const) {
          expect(cell(name)).toBe(person[name] ?? '');
        }
        expect(cell('kind')).toBe(person.source_kind);
        expect(cell('received_at')).toBe(person.received_at);
      }
      const companies = parseCsv(await exportText(t, 'companies', { all: true }));
      const funding = companies[0]?.indexOf('total_funding_usd') ?? -1;
      expect(companies.map((r) => r[funding])).toContain('9007199254740993');
    });

    it('exports a person seen in several jobs once, the newest, unless all', async () => {
      const newest = parseCsv(await exportText(t, 'persons'));
      const jose = newest.filter((r) => r[0] === 'a0000001-0000-4000-8000-000000000001');
      expect(jose).toHaveLength(1);
      expect(jose[0]?.[15]).toBe('moved'); // job_change_status: the Job Change came after the Search Contact
      const every = parseCsv(await exportText(t, 'persons', { all: true }));
      expect(every.filter((r) => r[0] === 'a0000001-0000-4000-8000-000000000001')).toHaveLength(2);
    });

    it('keeps no_change and unknown out of CRM templates unless asked', async () => {
      const status = (rows: string[][]) => rows.slice(1).map((r) => r.at(-4));
      expect(status(parseCsv(await exportText(t, 'hubspot-contacts')))).not.toContain('no_change');
      const asked = parseCsv(
        await exportText(t, 'hubspot-contacts', { jobChangeStatuses: ['no_change', 'unknown'] }),
      );
      // Statuses asked for keep job changes only: no Search Contact person (empty status) comes along.
      expect(asked.slice(1).map((r) => r[10])).toEqual(['no_change', 'unknown']);
      // The e-mail you gave identifies the record.
      expect(asked.slice(1).map((r) => r[2])).toEqual(['sam@oldco.example', '']);
      // 'all' filters no status: the Search Contact persons are back, José's newest row among them.
      const every = parseCsv(await exportText(t, 'hubspot-contacts', { jobChangeStatuses: 'all' }));
      expect(every.slice(1).map((r) => r[10])).toContain('');
      expect(every.slice(1).map((r) => r[10])).toContain('no_change');
    });

    it('narrows to one kind and to a time window', async () => {
      const searchOnly = parseCsv(await exportText(t, 'persons', { kind: 'search_contact', all: true }));
      expect(new Set(searchOnly.slice(1).map((r) => r[20]))).toEqual(new Set(['search_contact']));
      expect(searchOnly).toHaveLength(5);
      const since = new Date(FIXTURE_START_MS + 6 * FIXTURE_STEP_MS).toISOString();
      const late = parseCsv(await exportText(t, 'companies', { since, all: true, includeEmpty: true }));
      expect(late.slice(1).map((r) => r[27])).toEqual([
        '77777777-7777-4777-8777-777777777777',
        '88888888-8888-4888-8888-888888888888',
        '99999999-9999-4999-8999-999999999999',
      ]);
      // Without includeEmpty, the reveal that found no company (the ISP's, job 9999…) is left out.
      const found = parseCsv(await exportText(t, 'companies', { since, all: true }));
      expect(found.slice(1).map((r) => r[27])).toEqual(late.slice(1, 3).map((r) => r[27]));
    });

    it('exports a user template from a path, reaching into JSON fields', async () => {
      const file = join(t.dir, 'my-template.json');
      await writeFile(
        file,
        JSON.stringify({
          name: 'my-job-changes',
          description: 'record ids from custom_fields',
          source: 'job_changes',
          dialect: 'crm-import',
          filter: { job_change_status: ['moved'] },
          columns: [
            { header: 'Record ID', field: 'task.custom_fields.hs_object_id' },
            {
              header: 'Started',
              field: 'person.experiences.0.start_date',
              transforms: [{ op: 'date', format: 'MM/DD/YYYY' }],
            },
            { header: 'Title', firstOf: ['person.title', 'previous_title'] },
            { header: 'Source', value: 'hooksync' },
          ],
        }),
      );
      const sink = new PassThrough();
      const chunks: Buffer[] = [];
      sink.on('data', (c: Buffer) => chunks.push(c));
      await runExport(t.database.db, await loadTemplate(file), { out: '-', stdout: sink });
      expect(Buffer.concat(chunks).toString('utf8')).toBe(
        'Record ID,Started,Title,Source\n951203,02/01/2026,"VP Sales, ""EMEA""",hooksync\n',
      );
    });

    it('reads fields kept only in the envelope: each person their own experiences, `present` on them', async () => {
      const persons = (await readFixtureEnvelopes())
        .map((e) => JSON.parse(e.text) as { output?: { persons?: Array<Record<string, unknown>> } })
        .flatMap((e) => e.output?.persons ?? []);
      expect(persons.length).toBeGreaterThan(1);
      const rows: string[][] = [];
      const template = await loadTemplate('persons');
      const own = {
        ...template,
        dedupe: false,
        jobChangeStatuses: undefined,
        columns: [
          { header: 'id', field: 'id', transforms: [] },
          { header: 'experiences', field: 'experiences', transforms: [] },
        ],
      };
      for await (const row of exportRows(t.database.db, own, { kind: 'search_contact' })) rows.push(row);
      expect(rows).toEqual(persons.map((p) => [p.id, JSON.stringify(p.experiences)]));

      const companies = await loadTemplate('companies');
      const withWebsite = {
        ...companies,
        dedupe: false,
        present: ['website'],
        columns: [{ header: 'website', field: 'website', transforms: [] }],
      };
      const websites: string[][] = [];
      for await (const row of exportRows(t.database.db, withWebsite)) websites.push(row);
      expect(websites.length).toBeGreaterThan(0);
      expect(websites.every(([website]) => website !== '')).toBe(true);
      const everyReveal: string[][] = [];
      for await (const row of exportRows(t.database.db, { ...withWebsite, present: [] }))
        everyReveal.push(row);
      expect(everyReveal.length).toBeGreaterThan(websites.length);
    });

    it('streams rows for your own sink with exportRows, raw unless asked to guard', async () => {
      const template = await loadTemplate('persons');
      const raw: string[][] = [];
      for await (const row of exportRows(t.database.db, template)) raw.push(row);
      expect(raw.map((r) => r[12])).toContain('-Head of Growth');
      const guarded: string[][] = [];
      for await (const row of exportRows(t.database.db, template, { formulaGuard: true })) guarded.push(row);
      expect(guarded.map((r) => r[12])).toContain("'-Head of Growth");
    });

    it.each(['persons', 'hubspot-companies', 'salesforce-contacts', 'pipedrive-persons'])(
      '%s: exportJobRows over many jobs gives each job the rows exportRows gives it alone, in order',
      async (name) => {
        const template = await loadTemplate(name);
        const jobIds = (
          await t.database.db.selectFrom('jobs').select('job_id').orderBy('job_id').execute()
        ).map((row) => row.job_id);
        const alone = new Map<string, string[][]>();
        for (const jobId of jobIds) {
          const rows: string[][] = [];
          for await (const cells of exportRows(t.database.db, template, { jobId, all: true }))
            rows.push(cells);
          if (rows.length > 0) alone.set(jobId, rows);
        }
        expect(alone.size).toBeGreaterThan(1);
        const together = new Map<string, string[][]>();
        for await (const { jobId, cells } of exportJobRows(t.database.db, template, { jobIds, all: true })) {
          together.set(jobId, [...(together.get(jobId) ?? []), cells]);
        }
        expect(together).toEqual(alone);
        const none: unknown[] = [];
        for await (const row of exportJobRows(t.database.db, template, { jobIds: [], all: true }))
          none.push(row);
        expect(none).toEqual([]);
      },
    );
  });

  describe('--since-last', () => {
    let t: ExportTestDatabase;
    let envelopes: string[];
    beforeAll(async () => {
      t = await openExportTestDatabase(dialect);
      envelopes = (await readFixtureEnvelopes()).map((e) => e.text);
    });
    afterAll(async () => t?.dispose());

    it('carries only new rows, and repeats them after a failed write', async () => {
      const template = await loadTemplate('job-changes');
      let nowMs = FIXTURE_START_MS;
      const run = (out: string, stdout?: Writable) =>
        runExport(t.database.db, template, {
          out,
          stdout,
          sinceLast: true,
          now: () => nowMs,
          settleMs: 1000,
        });
      const ids = async (file: string) =>
        parseCsv(await readFile(file, 'utf8'))
          .slice(1)
          .map((r) => r[0]);

      await storeEnvelopes(t.database, envelopes.slice(1, 3), FIXTURE_START_MS); // moved, left
      nowMs = FIXTURE_START_MS + 10 * FIXTURE_STEP_MS;
      const first = await run(join(t.dir, 'first.csv'));
      expect(first.rows).toBe(2);
      expect(first.since).toBeUndefined();

      await storeEnvelopes(t.database, envelopes.slice(3, 4), nowMs); // no_change, stored "now"
      nowMs += 500; // inside the settle time: not exported yet
      const early = await run(join(t.dir, 'early.csv'));
      expect(early.rows).toBe(0);

      nowMs += 60_000;
      // The write fails: no file, and the cursor stays where it was.
      await expect(run(join(t.dir, 'missing-folder', 'x.csv'))).rejects.toThrow(
        /missing-folder does not exist/,
      );
      const broken = new Writable({
        write(_chunk, _encoding, callback) {
          callback(new Error('pipe closed'));
        },
      });
      await expect(run('-', broken)).rejects.toThrow('pipe closed');

      const second = await run(join(t.dir, 'second.csv'));
      expect(await ids(join(t.dir, 'second.csv'))).toEqual(['44444444-4444-4444-8444-444444444444']);
      expect(second.since).toBe(early.until);

      nowMs += 60_000;
      expect((await run(join(t.dir, 'third.csv'))).rows).toBe(0);
      expect(await ids(join(t.dir, 'first.csv'))).toEqual([
        '22222222-2222-4222-8222-222222222222',
        '33333333-3333-4333-8333-333333333333',
      ]);
    });

    it('stops before a job whose rows the normalizer has not written yet, and carries them next time', async () => {
      const own = await openExportTestDatabase(dialect);
      try {
        const template = await loadTemplate('job-changes');
        const storedAtMs = FIXTURE_START_MS;
        let nowMs = storedAtMs + 60_000;
        const run = (name: string) =>
          runExport(own.database.db, template, {
            out: join(own.dir, name),
            sinceLast: true,
            now: () => nowMs,
            settleMs: 1000,
          });
        const moved = envelopes[1]!;
        const jobId = (JSON.parse(moved) as { input: { task: { job_id: string } } }).input.task.job_id;
        await storeEnvelopes(own.database, [moved], storedAtMs);
        // As serve leaves it between acknowledging and normalizing: the job, queued, without rows.
        await own.database.db.deleteFrom('job_changes').where('job_id', '=', jobId).execute();
        await own.database.db.deleteFrom('persons').where('job_id', '=', jobId).execute();
        await own.database.db
          .insertInto('normalization_queue')
          .values({ job_id: jobId, revision: 1, stored_at: new Date(storedAtMs).toISOString() })
          .execute();
        const before = await run('queued-1.csv');
        expect(before).toMatchObject({ rows: 0, until: new Date(storedAtMs).toISOString() });

        await normalizeQueuedJobs(own.database);
        nowMs += 1000;
        const after = await run('queued-2.csv');
        expect(after.since).toBe(before.until);
        const rows = parseCsv(await readFile(join(own.dir, 'queued-2.csv'), 'utf8')).slice(1);
        expect(rows.map((r) => r[0])).toEqual([jobId]);
      } finally {
        await own.dispose();
      }
    });

    it('keeps one cursor per template and kind', async () => {
      const persons = await loadTemplate('persons');
      const nowMs = FIXTURE_START_MS + 100 * FIXTURE_STEP_MS;
      await mkdir(join(t.dir, 'k'), { recursive: true });
      const a = await runExport(t.database.db, persons, {
        out: join(t.dir, 'k', 'a.csv'),
        sinceLast: true,
        kind: 'job_change',
        now: () => nowMs,
      });
      const b = await runExport(t.database.db, persons, {
        out: join(t.dir, 'k', 'b.csv'),
        sinceLast: true,
        now: () => nowMs,
      });
      expect(a.cursorKey).toBe('persons:job_change');
      expect(b.cursorKey).toBe('persons');
      expect(a.rows).toBe(2);
      expect(b.rows).toBe(2);
      const cursors = await t.database.db
        .selectFrom('export_cursors')
        .selectAll()
        .orderBy('template')
        .execute();
      expect(cursors.map((c) => c.template)).toEqual(['job-changes', 'persons', 'persons:job_change']);
    });
  });

  describe('persons without an id', () => {
    let t: ExportTestDatabase;
    /** The fixture page again as job `jobId`, its persons without ids, all with one LinkedIn URL. */
    const pageWithoutIds = (text: string, jobId: string, title: string) => {
      const envelope = JSON.parse(text) as {
        input: { task: { job_id: string } };
        output: { persons: Array<Record<string, unknown>> };
      };
      envelope.input.task.job_id = jobId;
      envelope.output.persons = envelope.output.persons.slice(0, 1).map((person) => {
        const { id: _id, ...rest } = person;
        return { ...rest, linkedin_url: 'https://www.linkedin.com/in/no-id-person', title };
      });
      return JSON.stringify(envelope);
    };
    beforeAll(async () => {
      t = await openExportTestDatabase(dialect);
      const [page] = await readFixtureEnvelopes();
      await storeEnvelopes(t.database, [
        pageWithoutIds(page!.text, 'b0000001-0000-4000-8000-000000000001', 'Older title'),
        pageWithoutIds(page!.text, 'b0000001-0000-4000-8000-000000000002', 'Newer title'),
      ]);
    });
    afterAll(async () => t?.dispose());

    it('are told apart by linkedin_url: one row, the newest, unless all', async () => {
      const newest = parseCsv(await exportText(t, 'persons'));
      const title = newest[0]?.indexOf('title') ?? -1;
      expect(newest.slice(1).map((r) => r[title])).toEqual(['Newer title']);
      expect(parseCsv(await exportText(t, 'persons', { all: true }))).toHaveLength(3);
    });

    // Migration 030 keeps only these persons in persons_linkedin_url_idx: the newest-only probe must use it.
    it('find their newer rows through the partial linkedin_url index', async () => {
      const template = await loadTemplate('persons');
      const query = buildExportQuery(
        t.database.db,
        EXPORT_SOURCES.persons,
        compileTemplate(template).fields,
        { dedupe: true },
      ).compile();
      const plan = await t.database.db.transaction().execute(async (trx) => {
        // A table of three rows is scanned whatever its indexes: Postgres is told to avoid scans.
        if (dialect === 'postgres') await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const explain = dialect === 'postgres' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
        const result = await trx.executeQuery<Record<string, string>>(
          CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]),
        );
        return result.rows.map((row) => row['QUERY PLAN'] ?? row.detail ?? '').join('\n');
      });
      expect(plan).toMatch(/persons_linkedin_url_idx/);
      expect(plan).toMatch(/persons_person_id_idx/);
    });
  });
}

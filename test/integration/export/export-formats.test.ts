/**
 * `hooksync export --format csv|jsonl|parquet`, in-process against a real SQLite file: every built-in
 * template in every format has the same rows, the Parquet read back by an independent reader (DuckDB) with
 * its columns typed (times as timestamps), and --since-last and --watch/--changes-since work in each format.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnValueTypes } from '../../../src/export/column-value-types.js';
import { loadTemplate } from '../../../src/export/load-template.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { BUILT_CLI } from '../../helpers/ensure-built.js';
import { runNode } from '../../helpers/run-process.js';
import {
  type ExportTestDatabase,
  openExportTestDatabase,
  readFixtureEnvelopes,
  storeEnvelopes,
} from './export-database.js';

const DUCKDB_TYPES = {
  string: 'VARCHAR',
  integer: 'BIGINT',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
} as const;

describe('hooksync export --format', () => {
  let t: ExportTestDatabase;
  let env: Record<string, string>;
  let duck: Awaited<ReturnType<Awaited<ReturnType<typeof DuckDBInstance.create>>['connect']>>;
  const templates: string[] = [];

  const query = async (text: string) => (await duck.runAndReadAll(text)).getRowObjectsJson();
  const exportTo = async (args: readonly string[]) => {
    const run = await runCliCaptured(['export', ...args], { env });
    expect(run.stderr, run.stderr).toMatch(/^exported /);
    expect(run.code).toBe(0);
    return run;
  };

  beforeAll(async () => {
    t = await openExportTestDatabase();
    await storeEnvelopes(
      t.database,
      (await readFixtureEnvelopes()).map((e) => e.text),
    );
    env = { HOOKSYNC_DATABASE_URL: join(t.dir, 'hooksync.db') };
    duck = await (await DuckDBInstance.create(':memory:')).connect();
    const folder = new URL('../../../templates/', import.meta.url);
    for (const name of (await readdir(folder)).filter((n) => n.endsWith('.json')).sort()) {
      templates.push(name.replace(/\.json$/, ''));
    }
  });
  afterAll(async () => {
    duck?.closeSync();
    await t?.dispose();
  });

  it('writes every built-in template with as many rows in each format, typed in Parquet', async () => {
    let timestamps = 0;
    for (const name of templates) {
      const base = join(t.dir, name);
      await exportTo(['--template', name, '--all', '--out', `${base}.csv`]);
      await exportTo(['--template', name, '--all', '--format', 'jsonl', '--out', `${base}.jsonl`]);
      await exportTo(['--template', name, '--all', '--format', 'parquet', '--out', `${base}.parquet`]);
      const csv: string[][] = parse(await readFile(`${base}.csv`, 'utf8'), { bom: true });
      const lines = (await readFile(`${base}.jsonl`, 'utf8')).split('\n').filter((l) => l !== '');
      const [{ n }] = (await query(`select count(*) as n from read_parquet('${base}.parquet')`)) as [
        { n: string },
      ];
      expect([lines.length, Number(n)], name).toEqual([csv.length - 1, csv.length - 1]);
      expect(csv.length, name).toBeGreaterThan(1);

      const template = await loadTemplate(name);
      const described = await query(`describe select * from read_parquet('${base}.parquet')`);
      expect(described.map((c) => c.column_name)).toEqual(csv[0]);
      expect(
        described.map((c) => c.column_type),
        name,
      ).toEqual(columnValueTypes(template).map((type) => DUCKDB_TYPES[type]));
      expect(Object.keys(JSON.parse(lines[0]!))).toEqual(csv[0]);
      timestamps += described.filter((c) => c.column_type === DUCKDB_TYPES.timestamp).length;
    }
    expect(timestamps).toBeGreaterThanOrEqual(3);
  });

  it('keeps the values: Parquet and JSON lines agree with each other and the CSV cells', async () => {
    const base = join(t.dir, 'persons-values');
    await exportTo(['--template', 'persons', '--format', 'jsonl', '--out', `${base}.jsonl`]);
    await exportTo(['--template', 'persons', '--format', 'parquet', '--out', `${base}.parquet`]);
    await exportTo(['--template', 'persons', '--dialect', 'crm-import', '--out', `${base}.csv`]);
    const jsonl = (await readFile(`${base}.jsonl`, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const parquet = await query(
      `select * exclude (received_at), strftime(received_at at time zone 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') as received_at from read_parquet('${base}.parquet')`,
    );
    expect(parquet).toEqual(jsonl);
    const csv: Record<string, string>[] = parse(await readFile(`${base}.csv`, 'utf8'), { columns: true });
    // Typed formats keep values exactly (no formula guard): the CSV's guarded cells differ by their quote.
    expect(csv.map((r) => r.title)).not.toEqual(jsonl.map((r) => r.title));
    expect(jsonl.some((r) => typeof r.title === 'string' && /^[-=+@]/.test(r.title))).toBe(true);
    expect(jsonl[0]?.received_at).toBe('2026-03-10T08:00:00.000Z');
    expect(jsonl.some((r) => r.job_change_status === null)).toBe(true);
  });

  it.each(['jsonl', 'parquet'] as const)('moves the --since-last cursor in %s as in CSV', async (format) => {
    const out = join(t.dir, `since-last.${format}`);
    const count = async () =>
      format === 'jsonl'
        ? (await readFile(out, 'utf8')).split('\n').filter((l) => l !== '').length
        : Number(((await query(`select count(*) as n from read_parquet('${out}')`)) as [{ n: string }])[0].n);
    const first = await exportTo([
      '--template',
      'job-changes',
      '--since-last',
      '--format',
      format,
      '--out',
      out,
    ]);
    expect(await count()).toBeGreaterThan(0);
    expect(first.stderr).toContain(`cursor job-changes@${format} moved`);
    await exportTo(['--template', 'job-changes', '--since-last', '--format', format, '--out', out]);
    expect(await count()).toBe(0);
  });

  it('takes --watch and --changes-since with a typed format: only the movers', async () => {
    const jobId = '22222222-2222-4222-8222-222222222222';
    await t.database.db
      .insertInto('watch_changes')
      .values({
        watch: 'champions',
        row_key: 'rk',
        cycle: 1,
        change: 'moved',
        change_key: '',
        custom_fields: '{}',
        before: null,
        after: '{}',
        detected_at: new Date().toISOString(),
        job_id: jobId,
      })
      .execute();
    const out = join(t.dir, 'movers.parquet');
    const args = ['--template', 'job-changes', '--watch', 'champions', '--changes-since', '1d'];
    await exportTo([...args, '--format', 'parquet', '--out', out]);
    const rows = await query(`select job_id from read_parquet('${out}')`);
    expect(rows).toEqual([{ job_id: jobId }]);
    const jsonl = await exportTo([...args, '--format', 'jsonl']);
    expect(
      jsonl.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).job_id),
    ).toEqual([jobId]);
  });

  it('writes nothing when a declared type does not fit a value, and names the column', async () => {
    const file = join(t.dir, 'typed.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'typed',
        description: 'a count that is not one',
        source: 'persons',
        dialect: 'crm-import',
        columns: [{ header: 'first', field: 'first_name', type: 'integer' }],
      }),
    );
    const out = join(t.dir, 'typed.parquet');
    const run = await runCliCaptured(['export', '--template', file, '--format', 'parquet', '--out', out], {
      env,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/column first: ".*" is not an integer/);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
    expect((await readdir(t.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('runs as the executable does, in its bounded thread', async () => {
    const out = join(t.dir, 'executable.parquet');
    const run = await runNode(
      [BUILT_CLI, 'export', '--template', 'companies', '--format', 'parquet', '--out', out],
      {
        env: { PATH: process.env.PATH, ...env },
      },
    );
    expect(run.stderr).toMatch(/^exported 2 rows with template companies \(parquet\)/);
    expect(run.code).toBe(0);
    const [{ n }] = (await query(`select count(*) as n from read_parquet('${out}')`)) as [{ n: string }];
    expect(n).toBe('2');
    // To stdout, through the thread's piped output, byte for byte.
    const piped = join(t.dir, 'piped.parquet');
    execFileSync(
      'sh',
      [
        '-c',
        `"${process.execPath}" "${BUILT_CLI}" export --template companies --format parquet > "${piped}"`,
      ],
      {
        env: { PATH: process.env.PATH, ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const [{ m }] = (await query(`select count(*) as m from read_parquet('${piped}')`)) as [{ m: string }];
    expect(m).toBe('2');
  });

  it('refuses --dialect with a typed format, exit 2', async () => {
    const run = await runCliCaptured(
      ['export', '--template', 'persons', '--format', 'parquet', '--dialect', 'excel'],
      {
        env,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--dialect applies to CSV only');
  });
});

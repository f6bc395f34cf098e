/**
 * `hooksync export` and `hooksync templates`, run in-process against a real SQLite file.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import { runCli } from '../../../src/cli/run-cli.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import {
  type ExportTestDatabase,
  openExportTestDatabase,
  readFixtureEnvelopes,
  storeEnvelopes,
} from './export-database.js';

describe('hooksync export (CLI)', () => {
  let t: ExportTestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await openExportTestDatabase();
    await storeEnvelopes(
      t.database,
      (await readFixtureEnvelopes()).map((e) => e.text),
    );
    env = { HOOKSYNC_DATABASE_URL: join(t.dir, 'hooksync.db') };
  });
  afterAll(async () => t?.dispose());

  it('writes a built-in template to a file and reports on stderr', async () => {
    const out = join(t.dir, 'contacts.csv');
    const run = await runCliCaptured(['export', '--template', 'hubspot-contacts', '--out', out], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^exported 5 rows with template hubspot-contacts \(crm-import\) to .*contacts\.csv\n$/,
    );
    const rows: string[][] = parse(await readFile(out, 'utf8'));
    expect(rows[0]?.slice(0, 5)).toEqual(['firstname', 'lastname', 'email', 'jobtitle', 'company']);
    expect(rows).toHaveLength(6);
  });

  it('writes to stdout with --out -, in the dialect asked for', async () => {
    const run = await runCliCaptured(['export', '--template', 'persons', '--dialect', 'crm-import'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('id,first_name,')).toBe(true); // no BOM in crm-import
    expect(run.stdout).not.toContain('\r\n');
  });

  it('widens the job-change filter with --job-change-status all, and narrows with a list', async () => {
    const all = await runCliCaptured(['export', '--template', 'persons', '--job-change-status', 'all'], {
      env,
    });
    expect(all.stdout).toContain('no_change');
    expect(all.stdout).toContain('unknown');
    const left = await runCliCaptured(
      ['export', '--template', 'job-changes', '--job-change-status', 'left'],
      { env },
    );
    const rows: string[][] = parse(left.stdout, { bom: true });
    expect(rows.slice(1).map((r) => r[1])).toEqual(['left']);
  });

  it('exports every occurrence with --all', async () => {
    const newest = parse((await runCliCaptured(['export', '--template', 'companies'], { env })).stdout, {
      bom: true,
    });
    const all = parse(
      (await runCliCaptured(['export', '--template', 'companies', '--all'], { env })).stdout,
      {
        bom: true,
      },
    );
    expect(all.length).toBe(newest.length + 1);
  });

  it('fails an unknown template with a message naming it', async () => {
    const run = await runCliCaptured(['export', '--template', 'hubspot-contact'], { env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/no template named "hubspot-contact"/);
    expect(run.stderr).toMatch(/hubspot-contacts/); // lists the ones that exist
    expect(run.stdout).toBe('');
  });

  it('fails a template file that does not validate, naming file and column', async () => {
    const file = join(t.dir, 'broken.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'broken',
        description: 'x',
        source: 'persons',
        dialect: 'excel',
        columns: [
          { header: 'a', field: 'first_name' },
          { header: 'b', field: 'frist_name' },
        ],
      }),
    );
    const run = await runCliCaptured(['export', '--template', file], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toContain('column 2 "b"');
    expect(run.stderr).toContain('frist_name');
  });

  it('refuses a --kind the template source has no rows of, and a bad --since', async () => {
    const kind = await runCliCaptured(['export', '--template', 'companies', '--kind', 'job_change'], { env });
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(/companies.*company_reveal.*not job_change/);
    const since = await runCliCaptured(['export', '--template', 'persons', '--since', 'yesterday'], { env });
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/--since must be an ISO 8601/);
    const both = await runCliCaptured(
      ['export', '--template', 'persons', '--since', '2026-01-01', '--since-last'],
      {
        env,
      },
    );
    expect(both.code).toBe(2);
  });

  it('refuses a database that does not exist, naming it and creating nothing', async () => {
    const typo = join(t.dir, 'typo.db');
    const run = await runCliCaptured(['export', '--template', 'persons', '--database-url', typo]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `hooksync: no database at ${typo}: nothing was created (check --database-url or HOOKSYNC_DATABASE_URL; \`hooksync migrate\` creates an empty one)\n`,
    );
    expect(await readdir(t.dir)).not.toContain('typo.db');
  });

  it('works on a fresh database (made by migrate) and moves the cursor with --since-last', async () => {
    const fresh = { HOOKSYNC_DATABASE_URL: join(t.dir, 'fresh.db') };
    expect((await runCliCaptured(['migrate'], { env: fresh })).code).toBe(0);
    const first = await runCliCaptured(['export', '--template', 'persons', '--since-last'], { env: fresh });
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/exported 0 rows .* cursor persons moved/);
  });

  it('keeps only job changes with --job-change-status, and only found companies unless --include-empty', async () => {
    const moved = await runCliCaptured(
      ['export', '--template', 'persons', '--job-change-status', 'moved', '--all'],
      { env },
    );
    const rows: string[][] = parse(moved.stdout.replace(/^\uFEFF/, ''), { columns: false });
    const status = rows[0]?.indexOf('job_change_status') ?? -1;
    expect(status).toBeGreaterThan(-1);
    expect(rows.length).toBeGreaterThan(1);
    expect(new Set(rows.slice(1).map((r) => r[status]))).toEqual(new Set(['moved']));
    const found = await runCliCaptured(['export', '--template', 'companies'], { env });
    const every = await runCliCaptured(['export', '--template', 'companies', '--include-empty'], { env });
    const ids = (text: string): string[] =>
      (parse(text.replace(/^\uFEFF/, '')) as string[][]).slice(1).map((r) => r[0] ?? '');
    expect(ids(found.stdout)).not.toContain('');
    expect(ids(every.stdout)).toContain('');
    expect(ids(every.stdout).filter((id) => id !== '')).toEqual(ids(found.stdout));
  });

  it('names the file asked for, not a temporary one, when its folder does not exist', async () => {
    const out = join(t.dir, 'no-such-folder', 'contacts.csv');
    const run = await runCliCaptured(['export', '--template', 'persons', '--out', out], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `hooksync: cannot write ${out}: the folder ${join(t.dir, 'no-such-folder')} does not exist\n`,
    );
    expect(run.stderr).not.toMatch(/\.tmp/);
  });

  it('stops on SIGINT, leaving no file and no cursor change', async () => {
    const out = join(t.dir, 'interrupted.csv');
    const run = await runCliCaptured(['export', '--template', 'persons', '--out', out, '--since-last'], {
      env,
      shutdown: Promise.resolve('SIGINT'),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/export interrupted by SIGINT: nothing written/);
    expect(await readdir(t.dir)).not.toContain('interrupted.csv');
    expect((await readdir(t.dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const cursors = await t.database.db.selectFrom('export_cursors').selectAll().execute();
    expect(cursors.map((c) => c.template)).not.toContain('persons');
  });

  it('draws a progress line only on a terminal', async () => {
    const stderr = new PassThrough();
    const chunks: Buffer[] = [];
    stderr.on('data', (c: Buffer) => chunks.push(c));
    const ctx: CliContext = {
      env,
      stdin: Readable.from(['']),
      stdout: new PassThrough().resume(),
      stderr,
      interactive: true,
      setExitCode: () => {},
      shutdown: new Promise<string>(() => {}),
    };
    expect(await runCli(['export', '--template', 'persons'], ctx)).toBe(0);
    expect(Buffer.concat(chunks).toString('utf8')).toMatch(/\rexporting… 5 rows\nexported 5 rows/);
  });
});

describe('hooksync templates (CLI)', () => {
  it('lists the built-ins with source, dialect, column count and description', async () => {
    const run = await runCliCaptured(['templates', 'list']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SOURCE\s+DIALECT\s+COLUMNS\s+DESCRIPTION$/);
    expect(lines).toHaveLength(11);
    expect(run.stdout).toMatch(/^salesforce-leads\s+persons\s+crm-import\s+14\s+Salesforce Lead/m);
    const json = JSON.parse((await runCliCaptured(['templates', 'list', '--json'])).stdout);
    expect(json).toHaveLength(10);
  });

  it('shows a template: each column, the field it reads and where that comes from', async () => {
    const run = await runCliCaptured(['templates', 'show', 'hubspot-companies']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^industry\s+industry\s+company\.industry\s+map\(table hubspot-industry, loose match, else blank\)$/m,
    );
    expect(run.stdout).toMatch(/^linkedin_company_page\s+linkedin_url\s+company\.linkedin_url$/m);
    const missing = await runCliCaptured(['templates', 'show', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no template named "nope"/);
  });
});

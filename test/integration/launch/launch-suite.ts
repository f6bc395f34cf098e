/**
 * `hooksync launch` end to end, in-process, against the simulator, on SQLite or Postgres: typing and
 * validation before anything is sent, pacing, resumability, money stops, --pages, callbacks absorbed and
 * carried record ids in exports.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/contract/json.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { decodeEnvelope } from '../../../src/storage/envelope-codec.js';
import { withMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { BUILT_STORE_WORKER } from '../../helpers/ensure-built.js';
import { createDatabaseUrl, type Dialect } from '../../helpers/receiver-harness.js';

interface Report {
  rows: number;
  launched: number;
  skipped: number;
  invalid: number;
  failed: number;
  relaunched: number;
  stored: number;
  usd: number;
  stopped: string | null;
  rate_limited: number;
  errors: { line: number; message: string }[];
}

/** Task of a simulator job, as the finder answers it. */
function taskOf(sim: Simulator, jobId: string): Record<string, unknown> {
  const job = parseJsonText(sim.jobText(jobId) ?? '{}') as { input: { task: Record<string, unknown> } };
  return job.input.task;
}

/** The largest number of dates inside any window of `windowMs`. */
function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j]! < sorted[i]! + windowMs) j++;
    best = Math.max(best, j - i);
  }
  return best;
}

export function defineLaunchSuite(dialect: Dialect): void {
  let dir: string;
  let sim: Simulator;
  let database: { url: string; drop: () => Promise<void> };
  let env: Record<string, string>;

  const write = async (name: string, text: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  const launch = async (argv: string[], extraEnv: Record<string, string> = {}) => {
    const run = await runCliCaptured(['launch', ...argv, '--json', '--log-level', 'warn'], {
      env: { ...env, ...extraEnv },
    });
    const report = run.stdout === '' ? undefined : (JSON.parse(run.stdout) as Report);
    return { ...run, report: report as Report };
  };
  /** Exports every stored job through a template of `columns` over `source`; the data rows, header left out. */
  const exportColumns = async (
    source: 'companies' | 'job_changes' | 'persons',
    columns: { header: string; field: string }[],
  ): Promise<string[][]> => {
    const template = await write(
      `${source}-${columns.length}.json`,
      JSON.stringify({ name: 'carried', description: 'carried ids', source, dialect: 'crm-import', columns }),
    );
    const exported = await runCliCaptured(['export', '--template', template, '--all'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    return (parse(exported.stdout) as string[][]).slice(1);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hooksync-launch-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe(`on ${dialect}`, () => {
    beforeAll(async () => {
      // Callbacks wait a moment, so that the launcher's own answer is stored first (as with a real network).
      sim = await createSimulator({ seed: 17, rate: { perInterval: 4, intervalSeconds: 1 }, delayMs: 300 });
      database = await createDatabaseUrl(dialect);
      env = {
        HOOKSYNC_API_BASE_URL: sim.url,
        HOOKSYNC_API_KEY: sim.apiKey,
        HOOKSYNC_DATABASE_URL: database.url,
      };
    });
    afterAll(async () => {
      await sim?.close();
      await database?.drop();
    });
    afterEach(() => sim.reset());

    it('stops before sending anything when a row is invalid, naming each line and field', async () => {
      const file = await write(
        'bad.csv',
        [
          'domain,seniorities,page_size,title_filters',
          'acme.com,Director,10,',
          'globex.com,"Vice President,Chief",10,',
          'initech.com,Manager,ten,',
          'umbrella.com,,5,not json',
          'hooli.com,Manager,300,',
        ].join('\n'),
      );
      const run = await launch(['search', '--from', file]);
      expect(run.code).toBe(1);
      expect(sim.jobs()).toEqual([]);
      expect(run.report).toMatchObject({ rows: 5, invalid: 4, launched: 0, stopped: 'invalid_rows' });
      expect(run.report.errors.map((e) => e.line)).toEqual([3, 4, 5, 6]);
      expect(run.stderr).toContain('line 3: seniorities[1]: must be one of');
      expect(run.stderr).toContain('line 4: page_size: "ten" is not an integer');
      expect(run.stderr).toContain('line 5: title_filters: must be JSON');
      expect(run.stderr).toContain('line 6: page_size: must be an integer from 1 to 250');
      expect(run.stderr).not.toMatch(/\n\s+at /);

      const skipping = await launch(['search', '--from', file, '--skip-invalid']);
      expect(skipping.code).toBe(0);
      expect(skipping.report).toMatchObject({ rows: 5, invalid: 4, launched: 1, stopped: null });
      expect(sim.jobs()).toHaveLength(1);
    });

    it('types cells by their field: lists, integers, JSON object lists, --set and --map', async () => {
      const file = await write(
        'typed.csv',
        [
          'Account Domain,seniorities,page_size,title_filters,Record',
          'acme.com,"Vice President, Director",3,"[{""name"":""sales"",""filter"":""Sales AND Head""}]",R-1',
          'globex.com,"[""Manager""]",2,"{""name"":""ops"",""filter"":""Operations""}",R-2',
        ].join('\n'),
      );
      const run = await launch([
        'search',
        '--from',
        file,
        '--map',
        'domain=Account Domain',
        '--set',
        'departments=Sales,Operations',
        '--carry',
        'crm_id=Record',
      ]);
      expect(run.code, run.stderr).toBe(0);
      const tasks = sim.jobs().map((j) => taskOf(sim, j.job_id));
      const byDomain = new Map(tasks.map((t) => [t.domain, t]));
      expect(byDomain.get('acme.com')).toMatchObject({
        seniorities: ['Vice President', 'Director'],
        departments: ['Sales', 'Operations'],
        page_size: 3,
        title_filters: [{ name: 'sales', filter: 'Sales AND Head' }],
        custom_fields: { crm_id: 'R-1' },
      });
      expect(byDomain.get('globex.com')).toMatchObject({
        seniorities: ['Manager'],
        page_size: 2,
        title_filters: [{ name: 'ops', filter: 'Operations' }],
        custom_fields: { crm_id: 'R-2' },
      });
    });

    it('reveals from a CSV, skips launched rows on a re-run, relaunches with --again, exports the carried id', async () => {
      const file = await write('ips.csv', 'ip,Id\n198.51.100.1,001A\n198.51.100.2,001B\n198.51.100.3,001C\n');
      const first = await launch(['reveal', '--from', file, '--carry', 'Id']);
      expect(first.code, first.stderr).toBe(0);
      expect(first.report).toMatchObject({ rows: 3, launched: 3, skipped: 0, stored: 3, failed: 0 });
      const again = await launch(['reveal', '--from', file, '--carry', 'Id']);
      expect(again.report).toMatchObject({ rows: 3, launched: 0, skipped: 3 });
      expect(sim.jobs()).toHaveLength(3);
      const forced = await launch(['reveal', '--from', file, '--carry', 'Id', '--again']);
      expect(forced.report).toMatchObject({ launched: 3, skipped: 0 });
      expect(sim.jobs()).toHaveLength(6);

      const rows = await exportColumns('companies', [
        { header: 'Id', field: 'task.custom_fields.Id' },
        { header: 'job_id', field: 'job_id' },
      ]);
      expect(new Set(rows.map((r) => r[0]))).toEqual(new Set(['001A', '001B', '001C']));
      expect(rows.every((r) => r[0] !== '')).toBe(true);
    });

    it('paces job-change checks inside the rate with few 429s, and exports the carried id', async () => {
      const lines = ['Email,Id'];
      for (let i = 0; i < 12; i += 1) lines.push(`person${i}@acme.com,C-${i}`);
      const file = await write('contacts.csv', lines.join('\n'));
      const run = await launch([
        'job-change',
        '--from',
        file,
        '--map',
        'professional_email=Email',
        '--carry',
        'Id',
        '--rate',
        '4/1',
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.report).toMatchObject({ launched: 12, failed: 0 });
      expect(run.report.rate_limited).toBeLessThanOrEqual(1);
      const starts = sim
        .jobs()
        .map((j) =>
          Date.parse(
            String((parseJsonText(sim.jobText(j.job_id) ?? '{}') as { start_date: string }).start_date),
          ),
        );
      expect(maxInWindow(starts, 1000)).toBeLessThanOrEqual(4);

      const rows = await exportColumns('job_changes', [
        { header: 'Id', field: 'task.custom_fields.Id' },
        { header: 'email', field: 'task.professional_email' },
      ]);
      expect(rows.map((r) => `${r[0]}=${r[1]}`).sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => `C-${i}=person${i}@acme.com`).sort(),
      );
    }, 30_000);

    it('--pages launches pages up to the first short one, and persons carry the row id', async () => {
      const file = await write(
        'accounts.csv',
        'domain,account\nacme.com,A-1\nno-such-company-here.com,A-2\n',
      );
      const run = await launch([
        'search',
        '--from',
        file,
        '--set',
        'page_size=2',
        '--pages',
        '3',
        '--carry',
        'account',
        '--rate',
        '20/1',
      ]);
      expect(run.code, run.stderr).toBe(0);
      const pages = new Map<string, { page: number; persons: number }[]>();
      for (const job of sim.jobs()) {
        const envelope = parseJsonText(sim.jobText(job.job_id) ?? '{}') as {
          input: { task: { domain: string; page_number: number } };
          output: { persons: unknown[] };
        };
        const list = pages.get(envelope.input.task.domain) ?? [];
        list.push({ page: envelope.input.task.page_number, persons: envelope.output.persons.length });
        pages.set(envelope.input.task.domain, list);
      }
      for (const [domain, list] of pages) {
        list.sort((a, b) => a.page - b.page);
        expect(
          list.map((p) => p.page),
          domain,
        ).toEqual(list.map((_, i) => i + 1));
        // Every page but the last is full; the last is short, or the third.
        for (const p of list.slice(0, -1)) expect(p.persons).toBe(2);
        const last = list[list.length - 1]!;
        expect(last.persons < 2 || last.page === 3, domain).toBe(true);
      }
      expect(run.report.launched).toBe(sim.jobs().length);

      const ours = new Set(sim.jobs().map((j) => j.job_id));
      const rows = (
        await exportColumns('persons', [
          { header: 'account', field: 'task.custom_fields.account' },
          { header: 'job_id', field: 'job_id' },
        ])
      ).filter((r) => ours.has(r[1] ?? ''));
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r[0] === 'A-1' || r[0] === 'A-2')).toBe(true);

      const rerun = await launch([
        'search',
        '--from',
        file,
        '--set',
        'page_size=2',
        '--pages',
        '3',
        '--carry',
        'account',
      ]);
      expect(rerun.report.launched).toBe(0);
      expect(rerun.report.skipped).toBe(run.report.launched);
    }, 30_000);

    it('--dry-run checks and counts without sending; stdin takes JSON lines', async () => {
      const file = await write('dry.csv', 'ip\n192.0.2.50\n192.0.2.51\n');
      const dry = await runCliCaptured(['launch', 'reveal', '--from', file, '--dry-run'], {
        env: { HOOKSYNC_DATABASE_URL: database.url },
      });
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('would launch 2 jobs');
      expect(dry.stdout).toContain('"ip":"192.0.2.50"');
      expect(sim.jobs()).toEqual([]);

      const lines = '{"ip":"192.0.2.60","custom_fields":{"visit":7}}\n\nnot json\n{"ip":"192.0.2.61"}\n';
      const piped = await runCliCaptured(
        ['launch', 'reveal', '--from', '-', '--format', 'jsonl', '--json', '--skip-invalid'],
        { env, stdin: lines },
      );
      const report = JSON.parse(piped.stdout) as Report;
      expect(report).toMatchObject({ rows: 3, invalid: 1, launched: 2 });
      expect(report.errors).toEqual([
        { line: 3, message: 'line is not a JSON object (the line does not parse as JSON)' },
      ]);
      const visits = sim.jobs().map((j) => taskOf(sim, j.job_id).custom_fields);
      expect(visits).toContainEqual({ visit: 7 });
    });

    it('an interrupt stops starting rows; the re-run finishes the file', async () => {
      const lines = ['contact_full_name'];
      for (let i = 0; i < 10; i += 1) lines.push(`Person Number ${i}`);
      const file = await write('interrupt.csv', lines.join('\n'));
      let interrupt: (signal: string) => void = () => {};
      const shutdown = new Promise<string>((resolve) => {
        interrupt = resolve;
      });
      const watcher = setInterval(() => {
        if (sim.jobs().length >= 2) interrupt('SIGINT');
      }, 5);
      const run = await runCliCaptured(
        ['launch', 'job-change', '--from', file, '--rate', '2/1', '--json', '--log-level', 'warn'],
        { env, shutdown },
      );
      clearInterval(watcher);
      const report = JSON.parse(run.stdout) as Report;
      expect(run.code).toBe(1);
      expect(report.stopped).toBe('interrupted');
      expect(report.launched).toBeLessThan(10);
      expect(report.launched).toBe(sim.jobs().length);
      const rest = await launch(['job-change', '--from', file, '--rate', '20/1']);
      expect(rest.report).toMatchObject({
        launched: 10 - report.launched,
        skipped: report.launched,
        relaunched: 0,
      });
      expect(sim.jobs()).toHaveLength(10);
    }, 20_000);

    it('purge --person erases the launch records that name the person', async () => {
      const file = await write(
        'erase.csv',
        'contact_linkedin\nhttps://www.linkedin.com/in/erase-me\nhttps://www.linkedin.com/in/keep-me\n',
      );
      expect((await launch(['job-change', '--from', file])).report.launched).toBe(2);
      const purge = await runCliCaptured(
        ['purge', '--person', 'https://www.linkedin.com/in/Erase-Me/', '--json'],
        { env },
      );
      expect(purge.code, purge.stderr).toBe(0);
      expect(JSON.parse(purge.stdout).deleted.launch_rows).toBe(1);
      await withMigratedDatabase(database.url, async ({ db }) => {
        const requests = (await db.selectFrom('launch_rows').select('request').execute()).map(
          (r) => r.request,
        );
        expect(requests.some((r) => r.includes('erase-me'))).toBe(false);
        expect(requests.some((r) => r.includes('keep-me'))).toBe(true);
      });
    });

    it('stops at once on 402 QUOTA_ACCOUNT_OVER_QUOTA, and at --max-usd', async () => {
      const lines = ['ip'];
      for (let i = 1; i <= 40; i += 1) lines.push(`203.0.113.${i}`);
      const file = await write('many.csv', lines.join('\n'));
      const budget = await launch(['reveal', '--from', file, '--max-usd', '0.1']);
      expect(budget.code).toBe(1);
      expect(budget.report.stopped).toBe('max_usd');
      // Each reveal reserves the highest price seen ($0.03) before it is sent: the limit is never passed.
      expect(budget.report.usd).toBeLessThanOrEqual(0.1);
      expect(budget.report.usd).toBeGreaterThan(0.1 - 0.031);
      expect(budget.stderr).toContain('budget reached');
      expect(sim.jobs().length).toBe(budget.report.launched);
      expect(1000 - sim.balanceUsd()).toBeLessThanOrEqual(0.1);
      // A later run learns the price from the rows before: it too stops within its own limit.
      const again = await launch(['reveal', '--from', file, '--max-usd', '0.05']);
      expect(again.report.stopped).toBe('max_usd');
      expect(again.report.usd).toBeLessThanOrEqual(0.05);
      expect(1000 - sim.balanceUsd()).toBeLessThanOrEqual(0.15);
    });

    it('absorbs the callbacks of launched jobs as duplicates', async () => {
      const { startReceiver } = await import('../../../src/server/start-receiver.js');
      const { loadConfig } = await import('../../../src/config/load-config.js');
      const { pino } = await import('pino');
      const receiver = await startReceiver({
        config: loadConfig({ ...env, HOOKSYNC_JWKS_URL: sim.jwksUrl }, { port: 0 }),
        logger: pino({ level: 'silent' }),
        storeWorkerUrl: BUILT_STORE_WORKER,
      });
      try {
        const file = await write('cb.csv', 'ip\n192.0.2.10\n192.0.2.11\n');
        const run = await launch(['reveal', '--from', file], { HOOKSYNC_PUBLIC_URL: receiver.url });
        expect(run.report).toMatchObject({ launched: 2, stored: 2 });
        const deliveries = await sim.waitForDeliveries({ count: 2 });
        expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
        await withMigratedDatabase(database.url, async ({ db }) => {
          for (const d of deliveries) {
            const jobs = await db.selectFrom('jobs').selectAll().where('job_id', '=', d.job_id).execute();
            expect(jobs).toHaveLength(1);
            expect(jobs[0]?.source).toBe('launch');
            expect(decodeEnvelope(jobs[0]?.envelope_z ?? Buffer.alloc(0))).toBe(sim.jobText(d.job_id));
            const entry = await db
              .selectFrom('expected_jobs')
              .selectAll()
              .where('job_id', '=', d.job_id)
              .executeTakeFirst();
            expect(entry?.state).toBe('received');
          }
        });
      } finally {
        await receiver.close();
      }
      // The receiver counts its answers (flushed on close): both callbacks were duplicates of stored jobs.
      await withMigratedDatabase(database.url, async ({ db }) => {
        const outcomes = await db
          .selectFrom('delivery_stats')
          .select(['outcome', 'count'])
          .where('outcome', '=', 'duplicate')
          .execute();
        expect(outcomes.reduce((sum, row) => sum + Number(row.count), 0)).toBe(2);
      });
    });
  });

  describe(`RUNNING answers against --max-usd on ${dialect}`, () => {
    let slow: Simulator;
    let db: { url: string; drop: () => Promise<void> };
    let slowEnv: Record<string, string>;
    beforeAll(async () => {
      // Job Change answers RUNNING and would finish a minute later: no answer of the run carries a price.
      slow = await createSimulator({ seed: 17, asyncMs: 60_000 });
      db = await createDatabaseUrl(dialect);
      slowEnv = {
        HOOKSYNC_API_BASE_URL: slow.url,
        HOOKSYNC_API_KEY: slow.apiKey,
        HOOKSYNC_DATABASE_URL: db.url,
      };
    });
    afterAll(async () => {
      await slow?.close();
      await db?.drop();
    });
    const checks = (name: string) => {
      const lines = ['contact_linkedin'];
      for (let i = 1; i <= 30; i += 1) lines.push(`https://www.linkedin.com/in/${name}-${i}`);
      return write(`${name}.csv`, lines.join('\n'));
    };
    const run = async (argv: string[]) => {
      const r = await runCliCaptured(['launch', ...argv, '--json', '--rate', '50/1'], { env: slowEnv });
      return { ...r, report: JSON.parse(r.stdout) as Report & { reserved_usd: number } };
    };

    it('never priced: the first check reserves the whole limit and goes alone; nothing else is sent', async () => {
      const charged = 1000 - slow.balanceUsd();
      const r = await run(['job-change', '--from', await checks('unpriced'), '--max-usd', '0.05']);
      expect(r.code).toBe(1);
      expect(r.report).toMatchObject({ launched: 1, stopped: 'max_usd', usd: 0, reserved_usd: 0.05 });
      expect(r.stderr).toContain('reserved for 1 job still RUNNING');
      expect(slow.jobs().filter((j) => j.status === 'RUNNING').length).toBeGreaterThanOrEqual(1);
      expect(1000 - slow.balanceUsd() - charged).toBeLessThanOrEqual(0.05);
    });

    it('with --estimate-usd, RUNNING checks hold their reservation: 30 checks against $0.05 launch 2', async () => {
      const before = slow.jobs().length;
      const charged = 1000 - slow.balanceUsd();
      const r = await run([
        'job-change',
        '--from',
        await checks('estimated'),
        '--max-usd',
        '0.05',
        '--estimate-usd',
        '0.02',
      ]);
      expect(r.code).toBe(1);
      expect(r.report).toMatchObject({ launched: 2, stopped: 'max_usd', reserved_usd: 0.04 });
      expect(slow.jobs().length - before).toBe(2);
      // What the simulator charges (it prices a check at $0.02) stays within the limit.
      expect(1000 - slow.balanceUsd() - charged).toBeLessThanOrEqual(0.05);
    });
  });

  describe(`quota on ${dialect}`, () => {
    let poor: Simulator;
    let db: { url: string; drop: () => Promise<void> };
    beforeAll(async () => {
      poor = await createSimulator({ seed: 17, balanceUsd: 0.1 });
      db = await createDatabaseUrl(dialect);
    });
    afterAll(async () => {
      await poor?.close();
      await db?.drop();
    });

    it('a 402 stops the run: one refusal, not one per row, and a re-run sends nothing twice', async () => {
      const lines = ['ip'];
      for (let i = 1; i <= 30; i += 1) lines.push(`203.0.113.${i}`);
      const file = await write('quota.csv', lines.join('\n'));
      const quotaEnv = {
        HOOKSYNC_API_BASE_URL: poor.url,
        HOOKSYNC_API_KEY: poor.apiKey,
        HOOKSYNC_DATABASE_URL: db.url,
      };
      const run = await runCliCaptured(['launch', 'reveal', '--from', file, '--json', '--concurrency', '2'], {
        env: quotaEnv,
      });
      const report = JSON.parse(run.stdout) as Report;
      expect(run.code).toBe(1);
      expect(report.stopped).toBe('quota');
      expect(report.failed).toBeLessThanOrEqual(2);
      expect(report.launched).toBe(poor.jobs().length);
      expect(report.launched + report.failed).toBeLessThan(30);
      expect(run.stderr).toContain('over quota');
      const jobsBefore = poor.jobs().length;
      const rerun = await runCliCaptured(['launch', 'reveal', '--from', file, '--json'], { env: quotaEnv });
      const second = JSON.parse(rerun.stdout) as Report;
      expect(second.skipped).toBe(jobsBefore);
      expect(poor.jobs().length).toBe(jobsBefore);
    });
  });
}

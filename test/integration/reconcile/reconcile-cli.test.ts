/**
 * `hooksync track`, `reconcile` and `reveal` run in-process as a user would, against the simulator and a
 * real SQLite file.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run-cli.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { listJobs } from '../../../src/storage/job-queries.js';
import { acquireLease, RECONCILE_LEASE_NAME } from '../../../src/storage/leases/acquire-lease.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { launchJobs, trackJobs } from './helpers/sim-jobs.js';

let dir: string;
let sim: Simulator;
let dbPath: string;
let env: Record<string, string>;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-cli-reconcile-'));
  sim = await createSimulator({ seed: 'cli', rate: { perInterval: 1000, intervalSeconds: 1 } });
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  dbPath = join(dir, `hooksync-${++n}.db`);
  env = {
    HOOKSYNC_DATABASE_URL: dbPath,
    HOOKSYNC_API_BASE_URL: sim.url,
    HOOKSYNC_API_KEY: sim.apiKey,
    HOOKSYNC_LOG_LEVEL: 'warn',
  };
});

async function withDb<T>(work: (database: HooksyncDatabase) => Promise<T>): Promise<T> {
  // Migrated, so that "nothing recorded" reads as an empty ledger even when the command never opened it.
  const database = await openMigratedDatabase(dbPath);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

const ledger = () => withDb((d) => d.db.selectFrom('expected_jobs').selectAll().orderBy('job_id').execute());

describe('hooksync track', () => {
  it('records ids given as arguments, and says how many were new', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const run = await runCliCaptured(['track', '--kind', 'job_change', a, b], { env });
    expect(run).toMatchObject({ code: 0, stdout: 'tracked 2 job id(s): 2 new, 0 already in the ledger\n' });
    const again = await runCliCaptured(['track', '--kind', 'job_change', a], { env });
    expect(again.stdout).toBe('tracked 1 job id(s): 0 new, 1 already in the ledger\n');
    expect((await ledger()).map((e) => [e.job_id, e.kind, e.state, e.origin])).toEqual(
      [a, b].sort().map((id) => [id, 'job_change', 'pending', 'track']),
    );
  });

  it('refuses a malformed id, naming it, and records nothing', async () => {
    const run = await runCliCaptured(['track', '--kind', 'job_change', randomUUID(), '12345-not-a-uuid'], {
      env,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('argument 2: "12345-not-a-uuid" is not a UUID');
    expect(run.stderr).toContain('nothing recorded');
    expect(await ledger()).toEqual([]);
  });

  it('reads --from a file, naming the line of a bad id, and records nothing', async () => {
    const file = join(dir, `ids-${n}.txt`);
    writeFileSync(file, `${randomUUID()}\n${randomUUID()}\n\n${randomUUID()}z\n`);
    const run = await runCliCaptured(['track', '--kind', 'search_contact', '--from', file], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 4: "[0-9a-f-]+z" is not a UUID/);
    expect(await ledger()).toEqual([]);
  });

  it('reads a CSV with job_id and kind columns from stdin', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const csv = `email,job_id,kind\n"x@y.com",${a},search_contact\nz@y.com,${b},company_reveal\n`;
    const run = await runCliCaptured(['track', '--from', '-'], { env, stdin: csv });
    expect(run).toMatchObject({ code: 0, stdout: 'tracked 2 job id(s): 2 new, 0 already in the ledger\n' });
    expect(new Map((await ledger()).map((e) => [e.job_id, e.kind]))).toEqual(
      new Map([
        [a, 'search_contact'],
        [b, 'company_reveal'],
      ]),
    );
  });

  it.each([
    [['track', randomUUID()], '--kind is required'],
    [['track', '--kind', 'job_change'], 'give job ids, or --from'],
    [['track', '--kind', 'jobs', randomUUID()], '--kind must be one of'],
  ])('fails %j as a usage error', async (argv, message) => {
    const run = await runCliCaptured(argv, { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});

describe('hooksync reconcile', () => {
  it('recovers tracked jobs and prints the JSON summary', async () => {
    const jobs = await launchJobs(sim, 4);
    await trackJobs(jobs, env);
    await runCliCaptured(['track', '--kind', 'company_reveal', randomUUID()], { env });

    const dry = await runCliCaptured(['reconcile', '--older-than', '0s', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    for (const job of jobs) expect(dry.stdout).toContain(job.job_id);
    expect(dry.stdout).toContain('dry run: would fetch 4; not fetchable (company_reveal) 1');

    const young = await runCliCaptured(['reconcile', '--json'], { env });
    expect(JSON.parse(young.stdout)).toMatchObject({ status: 'completed', checked: 0, fetched: 0 });

    const run = await runCliCaptured(['reconcile', '--older-than', '0s', '--json'], { env });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      status: 'completed',
      checked: 5,
      fetched: 4,
      recovered: 4,
      still_pending: 0,
      not_found: 0,
      failed: 0,
      rate_limited: 0,
      not_fetchable: 1,
    });
    expect(typeof report.duration_ms).toBe('number');
    expect(run.stderr).toContain('recovered a job whose callback never arrived');
    const stored = await withDb((d) => listJobs(d.db));
    expect(new Map(stored.map((r) => [r.job_id, r.envelope]))).toEqual(
      new Map(jobs.map((j) => [j.job_id, j.text])),
    );

    const history = await runCliCaptured(['reconcile', '--history', '--json'], { env });
    const runs = JSON.parse(history.stdout) as { status: string; report: { recovered: number } }[];
    expect(runs.map((r) => [r.status, r.report.recovered])).toEqual([
      ['completed', 4],
      ['completed', 0],
    ]);
    const table = await runCliCaptured(['reconcile', '--history'], { env });
    expect(table.stdout.split('\n')[0]).toContain('started_at');
  });

  it('stops on a bad key with a non-zero exit naming AUTH_BAD_API_KEY, and marks nothing', async () => {
    const id = (await launchJobs(sim, 1))[0]!.job_id;
    await runCliCaptured(['track', '--kind', 'search_contact', id], { env });
    const run = await runCliCaptured(['reconcile', '--older-than', '0s', '--json'], {
      env: { ...env, HOOKSYNC_API_KEY: randomUUID() },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('AUTH_BAD_API_KEY');
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'stopped',
      stop: { code: 'AUTH_BAD_API_KEY', status: 403 },
    });
    expect(await ledger()).toEqual([
      expect.objectContaining({ job_id: id, state: 'pending', attempts: 0, last_error: null }),
    ]);
  });

  it('exits 0 naming the holder when another run holds the lease', async () => {
    await runCliCaptured(['track', '--kind', 'job_change', randomUUID()], { env });
    await withDb((d) =>
      acquireLease(d.db, {
        name: RECONCILE_LEASE_NAME,
        holder: 'box-7:4242:cafe',
        ttlMs: 60_000,
        nowMs: Date.now(),
      }),
    );
    const run = await runCliCaptured(['reconcile', '--older-than', '0s'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('another reconcile run holds the lease: box-7:4242:cafe');
  });

  it.each([
    [['reconcile', '--older-than', 'soon'], '--older-than'],
    [['reconcile', '--limit', '0'], '--limit must be a positive integer'],
  ])('fails %j as a usage error', async (argv, message) => {
    const run = await runCliCaptured(argv, { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('draws a progress bar on stderr only when stderr is a terminal', async () => {
    const jobs = await launchJobs(sim, 2);
    for (const job of jobs) await runCliCaptured(['track', '--kind', job.kind, job.job_id], { env });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const err: Buffer[] = [];
    stderr.on('data', (chunk: Buffer) => err.push(chunk));
    stdout.resume();
    const code = await runCli(['reconcile', '--older-than', '0s'], {
      env,
      stdin: Readable.from(['']),
      stdout,
      stderr,
      interactive: true,
      setExitCode: () => {},
      shutdown: new Promise<string>(() => {}),
    });
    expect(code).toBe(0);
    const text = Buffer.concat(err).toString('utf8');
    expect(text).toContain('\r[##############################] 2/2 fetched 2 recovered 2');
    expect(text.endsWith('\n')).toBe(true);
    // Not interactive (every other test here): no bar at all.
    const plain = await runCliCaptured(['reconcile', '--older-than', '0s'], { env });
    expect(plain.stderr).not.toContain('\r[');
  });

  it('needs a configured service to run, not to dry-run', async () => {
    const bare = { HOOKSYNC_DATABASE_URL: dbPath };
    expect((await runCliCaptured(['reconcile'], { env: bare })).stderr).toContain('HOOKSYNC_API_BASE_URL');
    expect((await runCliCaptured(['reconcile', '--dry-run'], { env: bare })).code).toBe(0);
  });
});

describe('hooksync reveal', () => {
  it('launches, stores the answer at once and records the launch as received', async () => {
    const run = await runCliCaptured(['reveal', '23.45.67.89', '--custom-field', 'crm_id=42', '--json'], {
      env,
    });
    expect(run.code).toBe(0);
    const raw = run.stdout.replace(/\n$/, '');
    const jobId = (JSON.parse(raw) as { input: { task: { job_id: string; custom_fields: unknown } } }).input
      .task.job_id;
    expect(JSON.parse(raw).input.task.custom_fields).toEqual({ crm_id: '42' });
    const [stored] = await withDb((d) => listJobs(d.db));
    expect(stored).toMatchObject({ job_id: jobId, kind: 'company_reveal', source: 'launch', envelope: raw });
    expect(await ledger()).toEqual([
      expect.objectContaining({ job_id: jobId, kind: 'company_reveal', state: 'received', origin: 'launch' }),
    ]);
    const text = await runCliCaptured(['reveal', '23.45.67.90'], { env });
    expect(text.stdout).toMatch(/^job_id {6}[0-9a-f-]{36}\nstatus {6}SUCCEEDED\n/);
  });

  it('refuses a bad custom field and a bad IP before sending anything', async () => {
    expect((await runCliCaptured(['reveal', '1.2.3.4', '--custom-field', 'novalue'], { env })).code).toBe(2);
    const bad = await runCliCaptured(['reveal', '999.1.1.1'], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('VALIDATION_BAD_REQUEST');
  });
});

/**
 * kill -9 in the middle of a launch, then the same command again: the re-run finishes the file, and the
 * few requests that were in flight (the service may have their jobs; only their lost answers held the
 * job_ids) are marked uncertain and reported, not paid for again, until --resend-unknown asks for them
 * (the built executable, a real process).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/contract/json.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { withMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { ensureBuilt } from '../../helpers/ensure-built.js';
import { until } from '../../helpers/until.js';

const ROWS = 30;
const CONCURRENCY = 4;

describe('hooksync launch after kill -9', () => {
  let dir: string;
  let sim: Simulator;
  let cli: string;
  beforeAll(async () => {
    cli = ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'hooksync-launch-crash-'));
    sim = await createSimulator({ seed: 3, rate: { perInterval: 5, intervalSeconds: 1 } });
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('re-run launches every other row once and reports the rows that were in flight instead of paying again', async () => {
    const lines = ['contact_linkedin,Id'];
    for (let i = 0; i < ROWS; i += 1) lines.push(`https://www.linkedin.com/in/person-${i},R${i}`);
    const file = join(dir, 'contacts.csv');
    await writeFile(file, lines.join('\n'));
    const env = {
      HOOKSYNC_API_BASE_URL: sim.url,
      HOOKSYNC_API_KEY: sim.apiKey,
      HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
    };
    const argv = ['launch', 'job-change', '--from', file, '--carry', 'Id', '--rate', '5/1'];
    const child = spawn(process.execPath, [cli, ...argv, '--concurrency', String(CONCURRENCY)], {
      env: { ...process.env, ...env, HOOKSYNC_LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await until(() => sim.jobs().length >= 8, { message: 'eight rows are launched' });
    child.kill('SIGKILL');
    await exited;
    const before = sim.jobs().length;
    expect(before).toBeGreaterThanOrEqual(8);
    expect(before).toBeLessThan(ROWS);
    const inFlight = await withMigratedDatabase(env.HOOKSYNC_DATABASE_URL, async ({ db }) =>
      db.selectFrom('launch_rows').select(['line', 'state']).where('state', '=', 'sending').execute(),
    );
    expect(inFlight.length).toBeGreaterThanOrEqual(1);
    expect(inFlight.length).toBeLessThanOrEqual(CONCURRENCY);

    type Report = {
      launched: number;
      skipped: number;
      relaunched: number;
      unresolved: number;
      errors: { line: number; message: string }[];
    };
    const rerun = await runCliCaptured([...argv, '--json'], { env });
    const report = JSON.parse(rerun.stdout) as Report;
    // The rows in flight are reported (exit 1), not sent: nothing is paid twice.
    expect(rerun.code).toBe(1);
    expect(report.relaunched).toBe(0);
    expect(report.unresolved).toBe(inFlight.length);
    expect(report.launched + report.skipped + report.unresolved).toBe(ROWS);
    expect(sim.jobs().length).toBe(before + report.launched);
    expect(report.errors.map((e) => e.line).sort()).toEqual(inFlight.map((r) => r.line).sort());
    expect(report.errors[0]?.message).toContain('the service may have the job (its job_id is unknown)');
    const marked = await withMigratedDatabase(env.HOOKSYNC_DATABASE_URL, async ({ db }) =>
      db.selectFrom('launch_rows').select(['state', 'error']).where('state', '=', 'uncertain').execute(),
    );
    expect(marked).toHaveLength(inFlight.length);
    // Reported again by the next run, still without sending.
    const again = JSON.parse((await runCliCaptured([...argv, '--json'], { env })).stdout) as Report;
    expect(again).toMatchObject({
      launched: 0,
      unresolved: inFlight.length,
      skipped: ROWS - inFlight.length,
    });
    expect(sim.jobs().length).toBe(before + report.launched);

    // On purpose: --resend-unknown sends them; every row is then launched, at most the in-flight ones twice.
    const resend = await runCliCaptured([...argv, '--json', '--resend-unknown'], { env });
    expect(resend.code, resend.stderr).toBe(0);
    expect(JSON.parse(resend.stdout)).toMatchObject({
      launched: inFlight.length,
      relaunched: inFlight.length,
      unresolved: 0,
    });
    const extra = sim.jobs().length - ROWS;
    expect(extra).toBeGreaterThanOrEqual(0);
    expect(extra).toBeLessThanOrEqual(inFlight.length);
    const ids = new Set(
      sim.jobs().map((j) => {
        const job = parseJsonText(sim.jobText(j.job_id) ?? '{}') as {
          input: { task: { custom_fields: { Id: string } } };
        };
        return job.input.task.custom_fields.Id;
      }),
    );
    expect(ids.size).toBe(ROWS);

    const third = await runCliCaptured([...argv, '--json'], { env });
    expect(JSON.parse(third.stdout)).toMatchObject({
      launched: 0,
      skipped: ROWS,
      relaunched: 0,
      unresolved: 0,
    });
  }, 90_000);
});

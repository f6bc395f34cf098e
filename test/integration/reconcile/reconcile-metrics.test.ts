/**
 * Reconcile's counters on a running receiver's /metrics are read from the recorded runs, so that the
 * "callbacks lost" alert (`increase(hooksync_reconcile_recovered_total[1d]) > 0`) fires when reconcile runs
 * from cron or the CLI, not only inside serve; `serve --reconcile-older-than` sets the grace of serve's runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { type RunningReceiver, startReceiver } from '../../../src/server/start-receiver.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { BUILT_STORE_WORKER } from '../../helpers/ensure-built.js';
import { launchJobs, trackJobs } from './helpers/sim-jobs.js';

describe('reconcile counters on /metrics', () => {
  let dir: string;
  let sim: Simulator;
  let running: RunningReceiver;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-reconcile-metrics-'));
    sim = await createSimulator({ seed: 'metrics', rate: { perInterval: 1000, intervalSeconds: 1 } });
    env = {
      HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
      HOOKSYNC_API_BASE_URL: sim.url,
      HOOKSYNC_API_KEY: sim.apiKey,
      HOOKSYNC_LOG_LEVEL: 'silent',
    };
    // A run recorded before the receiver starts: not counted by it (a counter counts from its process's start).
    const early = await launchJobs(sim, 1, { kinds: ['job_change'] });
    await runCliCaptured(['track', '--kind', 'job_change', early[0]!.job_id], { env });
    expect((await runCliCaptured(['reconcile', '--older-than', '0s'], { env })).code).toBe(0);
    running = await startReceiver({ config: loadConfig(env), port: 0, storeWorkerUrl: BUILT_STORE_WORKER });
  });
  afterAll(async () => {
    await running?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const metrics = async () => (await fetch(`${running.url}/metrics`)).text();
  const value = (text: string, series: string) =>
    Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? 'NaN');

  it('counts the jobs a reconcile run from the CLI recovered, by kind, and the run', async () => {
    const before = await metrics();
    expect(before).toMatch(/^# TYPE hooksync_reconcile_recovered_total counter$/m);
    // Each kind's series is there at 0 before anything is recovered, so that increase() sees the first one.
    expect(value(before, 'hooksync_reconcile_recovered_total{kind="search_contact"}')).toBe(0);
    expect(value(before, 'hooksync_reconcile_recovered_total{kind="job_change"}')).toBe(0);

    // Callbacks that never arrive: launched without a webhook_url, tracked, then recovered by the CLI.
    const jobs = await launchJobs(sim, 5);
    await trackJobs(jobs, env);
    const run = await runCliCaptured(['reconcile', '--older-than', '0s', '--json'], { env });
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'completed',
      recovered: 5,
      recovered_by_kind: { search_contact: 3, job_change: 2 },
    });

    const after = await metrics();
    expect(value(after, 'hooksync_reconcile_recovered_total{kind="search_contact"}')).toBe(3);
    expect(value(after, 'hooksync_reconcile_recovered_total{kind="job_change"}')).toBe(2);
    expect(value(after, 'hooksync_reconcile_runs_total{status="completed"}')).toBe(1);
    // Read once: a second scrape does not count the run again.
    expect(value(await metrics(), 'hooksync_reconcile_recovered_total{kind="search_contact"}')).toBe(3);
  });

  it('serve --reconcile-older-than is read as reconcile --older-than, and needs --reconcile-cron', async () => {
    const bad = await runCliCaptured(
      ['serve', '--reconcile-cron', '0 3 * * *', '--reconcile-older-than', '2x'],
      { env },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^hooksync: --reconcile-older-than: "2x" is not a duration/);
    const alone = await runCliCaptured(['serve', '--reconcile-older-than', '0s'], { env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe(
      'hooksync: --reconcile-older-than needs --reconcile-cron (it sets the grace period of those runs)\n',
    );
  });
});

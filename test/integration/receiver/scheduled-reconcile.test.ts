/**
 * serve --reconcile-cron: the receiver's own schedule recovers a job whose webhook was lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/client/create-client.js';
import { ConfigError } from '../../../src/errors.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { getJob } from '../../../src/storage/job-queries.js';
import { recordExpectedJobs } from '../../../src/storage/ledger/record-expected-jobs.js';
import { type ReceiverHarness, startHarness } from '../../helpers/receiver-harness.js';
import { until } from '../../helpers/until.js';

describe('serve with --reconcile-cron', () => {
  let sim: Simulator;
  let h: ReceiverHarness;
  beforeAll(async () => {
    sim = await createSimulator({ seed: 3 });
    h = await startHarness('sqlite', {
      env: { HOOKSYNC_JWKS_URL: sim.jwksUrl, HOOKSYNC_API_BASE_URL: sim.url, HOOKSYNC_API_KEY: sim.apiKey },
      // Every second (croner's six-field form), so the test sees a run soon.
      receiver: { now: Date.now, reconcileCron: '* * * * * *' },
    });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('fetches a tracked job whose webhook never came, and counts it as recovered', async () => {
    const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey });
    const { job } = await client.jobChange.launch({
      contact_linkedin: 'https://www.linkedin.com/in/lost-webhook',
    });
    const jobId = job.input.task.job_id as string;
    // Old enough to be past the default 15-minute grace period.
    await recordExpectedJobs(
      h.running.database.db,
      [{ job_id: jobId, kind: 'job_change' }],
      'track',
      new Date(Date.now() - 3_600_000),
    );
    await until(async () => (await getJob(h.running.database.db, jobId)) !== undefined, {
      message: 'the scheduled reconcile stores the job',
    });
    const row = await getJob(h.running.database.db, jobId);
    expect(row?.envelope).toBe(sim.jobText(jobId));
    expect(row?.source).toBe('finder');
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toMatch(/hooksync_reconcile_recovered_total\{kind="job_change"\} 1/);
  });

  it('refuses a schedule without an account to reach the finders', async () => {
    await expect(startHarness('sqlite', { receiver: { reconcileCron: '0 3 * * *' } })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });
});

/**
 * Reconcile against the simulator at a compressed rate (10 requests per 3 s): 40 jobs whose callbacks
 * were lost (20 dropped by the simulator's drop fault, 20 launched without webhook_url), tracked through
 * the receiver's admin API beside 10 that arrived by webhook. Reconcile learns the key's rate from the key
 * list, fetches exactly the 40 (never the 10), stores them byte for byte, and meets (almost) no 429.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/client/create-client.js';
import { loadConfig } from '../../../src/config/load-config.js';
import type { JobKind } from '../../../src/contract/enums.js';
import { runReconcile } from '../../../src/reconcile/run-reconcile.js';
import { type RunningReceiver, startReceiver } from '../../../src/server/start-receiver.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { listJobs } from '../../../src/storage/job-queries.js';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import { type HooksyncDatabase, openDatabase } from '../../../src/storage/open-database.js';
import { BUILT_STORE_WORKER } from '../../helpers/ensure-built.js';
import { createCountingFetch, type LaunchedJob, launchJobs } from './helpers/sim-jobs.js';

const ADMIN_TOKEN = 'reconcile-admin-token-0123456789';
const FAST = { perInterval: 1000, intervalSeconds: 1 };
const COMPRESSED = { perInterval: 10, intervalSeconds: 3 };

let dir: string;
let receiver: RunningReceiver;
let sims: Simulator[] = [];
let dropped: LaunchedJob[];
let silent: LaunchedJob[];
let delivered: LaunchedJob[];
const apiKey = randomUUID();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-recover-'));
  const shared = {
    seed: 'reconcile',
    apiKey,
    dbFile: join(dir, 'sim-jobs.jsonl'),
    keysFile: join(dir, 'sim-keys.json'),
    rate: FAST,
  };
  const simClean = await createSimulator(shared);
  const simDrop = await createSimulator({ ...shared, faults: { dropRate: 1 } });
  sims = [simClean, simDrop];
  receiver = await startReceiver({
    config: loadConfig(
      {},
      { databaseUrl: join(dir, 'hooksync.db'), jwksUrl: simClean.jwksUrl, adminToken: ADMIN_TOKEN },
    ),
    port: 0,
    storeWorkerUrl: BUILT_STORE_WORKER,
  });
  const webhookUrl = `${receiver.url}/webhooks`;
  dropped = await launchJobs(simDrop, 20, { webhookUrl });
  silent = await launchJobs(simClean, 20, { offset: 100 });
  delivered = await launchJobs(simClean, 10, { webhookUrl, offset: 200 });
  await Promise.all(sims.map((sim) => sim.waitForDeliveries()));
  expect(simDrop.deliveries().every((d) => d.fault === 'drop')).toBe(true);
  expect(simClean.deliveries().filter((d) => d.status === 200)).toHaveLength(10);
  await Promise.all(sims.map((sim) => sim.close()));
  // The service keeps its jobs; what changes is the rate the finders are called at.
  sims = [await createSimulator({ ...shared, rate: COMPRESSED })];
});

afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reconcile recovers lost callbacks from the finders', () => {
  it('tracks through the admin API, then fetches the 40 missing jobs only, verbatim, with few 429s', async () => {
    const all = [...dropped, ...silent, ...delivered];
    const tracked = await fetch(`${receiver.url}/admin/expected-jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jobs: all.map(({ job_id, kind }) => ({ job_id, kind })) }),
    });
    expect(await tracked.json()).toEqual({ accepted: 50, added: 50, already_expected: 0 });

    const [sim] = sims;
    const counting = createCountingFetch();
    const client = createClient({ baseUrl: sim!.url, apiKey, fetch: counting.fetch, rateLimit: FAST });
    let database: HooksyncDatabase | undefined;
    try {
      database = await openDatabase(join(dir, 'hooksync.db'));
      const store = createJobStore({ database });
      const recoveredKinds: JobKind[] = [];
      const report = await runReconcile(
        { db: database.db, client, store, onRecovered: (kind) => recoveredKinds.push(kind) },
        { olderThanMs: 0 },
      );
      await store.close();

      expect(report).toMatchObject({
        status: 'completed',
        checked: 50,
        already_received: 10,
        fetched: 40,
        recovered: 40,
        still_pending: 0,
        not_found: 0,
        failed: 0,
      });
      // The budget came from the key list (master key), not from the client's configured ceiling.
      expect(report.pacing).toEqual([COMPRESSED]);
      expect(report.rate_limited).toBeLessThanOrEqual(1);
      expect(counting.rateLimited()).toBeLessThanOrEqual(1);
      // 40 finder calls at 10 per 3 s cannot take less than three full windows.
      expect(report.duration_ms).toBeGreaterThanOrEqual(9000);
      expect(recoveredKinds.filter((k) => k === 'search_contact')).toHaveLength(20);

      for (const job of [...dropped, ...silent]) expect(counting.hits(job.job_id)).toBe(1);
      for (const job of delivered) expect(counting.hits(job.job_id)).toBe(0);
      expect(counting.total()).toBe(40);

      const rows = await listJobs(database.db);
      const byId = new Map(
        rows.map(({ job_id, envelope, source, status }) => [job_id, { job_id, envelope, source, status }]),
      );
      for (const job of [...dropped, ...silent]) {
        expect(byId.get(job.job_id)).toEqual({
          job_id: job.job_id,
          envelope: job.text,
          source: 'finder',
          status: 'SUCCEEDED',
        });
        expect(sim!.jobText(job.job_id)).toBe(job.text);
      }
      for (const job of delivered) expect(byId.get(job.job_id)?.source).toBe('webhook');
      const states = await database.db.selectFrom('expected_jobs').select('state').distinct().execute();
      expect(states).toEqual([{ state: 'received' }]);

      const again = await runReconcile(
        { db: database.db, client, store: createJobStore({ database }) },
        { olderThanMs: 0 },
      );
      expect(again).toMatchObject({ status: 'completed', checked: 0, fetched: 0 });
      expect(counting.total()).toBe(40);
    } finally {
      await database?.close();
    }
  });
});

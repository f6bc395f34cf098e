/**
 * Chaos on Postgres (issue 7, part 2): the same run as on SQLite, with two `hooksync serve` replicas
 * behind a round-robin proxy (the webhook_url), killed in turn three times, and concurrent reconcile runs:
 * while the first holds the lease, a second reports lease_held and a third waits for the lease and then
 * finds nothing left to do.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listReconcileRuns } from '../../src/reconcile/reconcile-history.js';
import type { ReconcileReport } from '../../src/reconcile/reconcile-report.js';
import { runReconcile } from '../../src/reconcile/run-reconcile.js';
import { createJobStore } from '../../src/storage/job-store/job-store.js';
import type { HooksyncDatabase } from '../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../src/storage/open-migrated-database.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../helpers/postgres.js';
import {
  CHAOS_RECEIVER_ENV,
  chaosFigures,
  checkAcknowledgements,
  checkChaosCoverage,
  checkQuarantine,
  checkRecovery,
  checkStoredJobs,
  readStoredSources,
} from '../helpers/reliability-chaos-checks.js';
import { runChaos } from '../helpers/reliability-chaos-run.js';
import { type ChaosSimulators, startChaosSimulators } from '../helpers/reliability-chaos-sims.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../helpers/reliability-proxy.js';
import { RELIABILITY_SCALE as SCALE } from '../helpers/reliability-scale.js';
import { findFreePort, type RestartableServe, startRestartableServe } from '../helpers/reliability-serve.js';

describe.skipIf(!TEST_DATABASE_URL)(
  pgSuiteName(
    `chaos on Postgres: ${SCALE.chaosJobs} jobs, two replicas behind a round robin (${SCALE.mode})`,
  ),
  () => {
    let dir: string;
    let drop: (() => Promise<void>) | undefined;
    let sims: ChaosSimulators | undefined;
    const databases: HooksyncDatabase[] = [];
    const receivers: RestartableServe[] = [];
    let proxy: RoundRobinProxy | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'hooksync-chaos-pg-'));
      const pg = await createTestDatabase();
      drop = pg.drop;
      sims = await startChaosSimulators(dir, SCALE.chaosRetryBaseMs);
      // Two connections of the test's own: one per reconcile run, as two machines would have.
      databases.push(await openMigratedDatabase(pg.url, { poolSize: 4 }));
      databases.push(await openMigratedDatabase(pg.url, { poolSize: 4 }));
      const env = { HOOKSYNC_DATABASE_URL: pg.url, HOOKSYNC_JWKS_URL: sims.jwksUrl, ...CHAOS_RECEIVER_ENV };
      for (let i = 0; i < 2; i++) receivers.push(await startRestartableServe(env, await findFreePort()));
      proxy = await startRoundRobinProxy(receivers.map((r) => r.url));
    }, 60_000);

    afterAll(async () => {
      await proxy?.close();
      await Promise.all(receivers.map((r) => r.close()));
      await sims?.close();
      await Promise.all(databases.map((d) => d.close()));
      await drop?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it(
      'stores every job once and verbatim across replicas and crashes; one reconcile run at a time',
      async () => {
        const s = sims!;
        const [first, second] = databases as [HooksyncDatabase, HooksyncDatabase];
        const run = await runChaos({
          sims: s,
          database: first,
          receivers,
          webhookUrl: `${proxy!.url}/webhooks`,
          jobs: SCALE.chaosJobs,
          launchesPerSecond: SCALE.chaosLaunchesPerSecond,
          concurrency: SCALE.chaosLaunchConcurrency,
          settleTimeoutMs: SCALE.chaosTimeoutMs / 2,
        });
        expect(run.jobs).toHaveLength(SCALE.chaosJobs);
        expect(run.killed).toEqual([0, 1, 0]);

        const coverage = checkChaosCoverage(s, run);
        const storedBefore = await readStoredSources(first.db);
        checkAcknowledgements(s, storedBefore);

        const reconcileOn = async (
          database: HooksyncDatabase,
          holder: string,
          options: { wait?: boolean; onProgress?: () => void } = {},
        ) => {
          const store = createJobStore({ database });
          try {
            return await runReconcile(
              {
                db: database.db,
                client: s.accountClient(),
                store,
                ...(options.onProgress ? { onProgress: options.onProgress } : {}),
              },
              { olderThanMs: 0, concurrency: 8, holder, wait: options.wait ?? false, leasePollMs: 100 },
            );
          } finally {
            await store.close();
          }
        };
        // Two more runs start on the other connection while the first holds the lease: one gives up at
        // once (lease_held), one waits for the lease and then finds nothing left to do.
        let others: Promise<ReconcileReport[]> | undefined;
        const a = await reconcileOn(first, 'replica-a', {
          onProgress: () => {
            others ??= Promise.all([
              reconcileOn(second, 'replica-b'),
              reconcileOn(second, 'replica-c', { wait: true }),
            ]);
          },
        });
        const [b, c] = (await others!) as [ReconcileReport, ReconcileReport];
        expect(a).toMatchObject({ status: 'completed', failed: 0, not_found: 0, still_pending: 0 });
        expect(b).toMatchObject({ status: 'lease_held', lease: { holder: 'replica-a' } });
        expect(c).toMatchObject({ status: 'completed', fetched: 0, recovered: 0, failed: 0 });
        const history = await listReconcileRuns(first.db);
        expect(history.map((h) => `${h.holder} ${h.status}`).sort()).toEqual([
          'replica-a completed',
          'replica-c completed',
        ]);
        const recovered = a.recovered;

        await checkStoredJobs(first.db, s, run.jobs);
        await checkRecovery(first.db, run, storedBefore, recovered);
        const refused = await checkQuarantine(first.db, s, run.jobs);

        await Promise.all(receivers.map((r) => r.terminate()));
        const figures = await chaosFigures(first.db, s, run, {
          refused_by_reason: refused,
          ...coverage,
          recovered_by_reconcile: recovered,
          reconcile_statuses: [a.status, b.status, c.status],
          proxy_forwarded: proxy!.forwarded,
          proxy_502_target_down: proxy!.failed,
          restart_ms: receivers.map((r) => r.restartMs),
        });
        recordReliabilityFigures(`chaos-postgres-${SCALE.mode}`, figures);
      },
      SCALE.chaosTimeoutMs,
    );
  },
);

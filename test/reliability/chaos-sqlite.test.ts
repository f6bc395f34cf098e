/**
 * Chaos on SQLite (issue 7, part 1): the simulators launch jobs of the three kinds at the real `hooksync
 * serve` with duplicates, tampered, unsigned and dropped deliveries, a key rotation midway and both
 * re-signed and reused retry tokens, while the receiver is SIGKILLed three times and restarted on its port;
 * then one reconcile. Every launched job must end stored once, verbatim; every refusal quarantined.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReconcile } from '../../src/reconcile/run-reconcile.js';
import { createJobStore } from '../../src/storage/job-store/job-store.js';
import type { HooksyncDatabase } from '../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../src/storage/open-migrated-database.js';
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
import { KILL_POINTS, runChaos } from '../helpers/reliability-chaos-run.js';
import { type ChaosSimulators, startChaosSimulators } from '../helpers/reliability-chaos-sims.js';
import { recordReliabilityFigures } from '../helpers/reliability-figures.js';
import { RELIABILITY_SCALE as SCALE } from '../helpers/reliability-scale.js';
import { findFreePort, type RestartableServe, startRestartableServe } from '../helpers/reliability-serve.js';

describe(`chaos on SQLite: ${SCALE.chaosJobs} jobs, one receiver SIGKILLed ${KILL_POINTS.length} times (${SCALE.mode})`, () => {
  let dir: string;
  let sims: ChaosSimulators | undefined;
  let database: HooksyncDatabase | undefined;
  let receiver: RestartableServe | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-chaos-'));
    sims = await startChaosSimulators(dir, SCALE.chaosRetryBaseMs);
    const databaseUrl = join(dir, 'hooksync.db');
    // Migrated here first, so that the receiver and the test never race on the schema.
    database = await openMigratedDatabase(databaseUrl);
    receiver = await startRestartableServe(
      { HOOKSYNC_DATABASE_URL: databaseUrl, HOOKSYNC_JWKS_URL: sims.jwksUrl, ...CHAOS_RECEIVER_ENV },
      await findFreePort(),
    );
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
    await sims?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'stores every launched job exactly once and verbatim, quarantines every refusal, reconciles the rest',
    async () => {
      const s = sims!;
      const db = database!;
      const run = await runChaos({
        sims: s,
        database: db,
        receivers: [receiver!],
        webhookUrl: `${receiver!.url}/webhooks`,
        jobs: SCALE.chaosJobs,
        launchesPerSecond: SCALE.chaosLaunchesPerSecond,
        concurrency: SCALE.chaosLaunchConcurrency,
        settleTimeoutMs: SCALE.chaosTimeoutMs / 2,
      });
      expect(run.jobs).toHaveLength(SCALE.chaosJobs);
      expect(run.killed).toEqual([0, 0, 0]);
      expect(receiver!.kills).toBe(3);

      const coverage = checkChaosCoverage(s, run);
      const storedBefore = await readStoredSources(db.db);
      checkAcknowledgements(s, storedBefore);

      const store = createJobStore({ database: db });
      const report = await runReconcile(
        { db: db.db, client: s.accountClient(), store },
        { olderThanMs: 0, concurrency: 8 },
      ).finally(() => store.close());
      expect(report).toMatchObject({ status: 'completed', failed: 0, not_found: 0, still_pending: 0 });

      await checkStoredJobs(db.db, s, run.jobs);
      await checkRecovery(db.db, run, storedBefore, report.recovered);
      const refused = await checkQuarantine(db.db, s, run.jobs);

      // A graceful stop flushes the receiver's own delivery counts (each SIGKILL lost up to 5 s of them).
      await receiver!.terminate();
      const figures = await chaosFigures(db.db, s, run, {
        refused_by_reason: refused,
        ...coverage,
        recovered_by_reconcile: report.recovered,
        reconcile_already_received: report.already_received,
        restart_ms: receiver!.restartMs,
      });
      recordReliabilityFigures(`chaos-sqlite-${SCALE.mode}`, figures);
    },
    SCALE.chaosTimeoutMs,
  );
});

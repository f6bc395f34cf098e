/**
 * The real `hooksync serve` running a watch, killed with SIGKILL mid-cycle and started again, on SQLite and
 * (with TEST_DATABASE_URL) Postgres: the cycle is taken up where it stood (once the dead process's lease has
 * expired), every row is checked in it, and no row is sent twice in it but the few that were in flight.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { openDatabase } from '../../../src/storage/open-database.js';
import { DEFAULT_WATCH_CONCURRENCY } from '../../../src/watches/run-cycle.js';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { createDatabaseUrl, type Dialect } from '../../helpers/receiver-harness.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { until as waitUntil } from '../../helpers/until.js';
import { championsWatch, contactsCsv, writeWatchesEnv } from '../../helpers/watches-env.js';

const ROWS = 8;
const fixture = useServeFixture('hooksync-watch-kill-');
let sim: Simulator;
let dbUrl: { url: string; drop: () => Promise<void> } | undefined;

beforeEach(async () => {
  sim = await createSimulator({ seed: 11 });
});
afterEach(async () => {
  await sim?.close();
  await dbUrl?.drop();
  dbUrl = undefined;
});

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 90_000,
): Promise<void> {
  await waitUntil(check, { message: what, timeout: timeoutMs });
}

const DIALECTS: Dialect[] = TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
if (!TEST_DATABASE_URL) {
  describe(pgSuiteName('hooksync serve running a watch on postgres, killed'), () =>
    it.skip('needs TEST_DATABASE_URL'),
  );
}

describe.each(DIALECTS)('hooksync serve running a watch on %s, killed', (dialect) => {
  it('takes the cycle up after SIGKILL: every row checked once, at most the in-flight few twice', async () => {
    const rows = Array.from({ length: ROWS }, (_, i) => [`p${i}.person@acme.com`, `003K${i}`] as const);
    writeFileSync(join(fixture.dir, 'contacts.csv'), contactsCsv(rows));
    dbUrl = await createDatabaseUrl(dialect);
    const databaseUrl = dbUrl.url;
    // Eight rows over 40 s: one every 5 s, so that the kill lands mid-cycle whatever the machine's load.
    const env = await writeWatchesEnv(sim, fixture.dir, [championsWatch({ every: '40s' })], {
      HOOKSYNC_DATABASE_URL: databaseUrl,
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
      // The test reads serve's info log ("watch running here").
      HOOKSYNC_LOG_LEVEL: 'info',
    });
    const first = await spawnServe(env);
    await until('three rows are checked', () => sim.jobs().length >= 3, 90_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const sentBeforeKill = sim.jobs().length;
    expect(sentBeforeKill).toBeLessThan(ROWS);

    const second = await spawnServe(env);
    const database = await openDatabase(databaseUrl);
    try {
      const cycleOne = () =>
        database.db.selectFrom('watch_cycles').selectAll().where('cycle', '=', 1).executeTakeFirst();
      await until('cycle 1 is finished', async () => (await cycleOne())?.finished_at != null, 90_000);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      expect(await cycleOne()).toMatchObject({ checked: ROWS, rows: ROWS, stopped: null });
      const later = await database.db
        .selectFrom('watch_cycles')
        .select(({ fn }) => fn.sum<number>('checked').as('checked'))
        .where('cycle', '>', 1)
        .executeTakeFirst();
      // A graceful stop records every check it sent: what the simulator got beyond that was cycle 1's.
      const sentInCycleOne = sim.jobs().length - Number(later?.checked ?? 0);
      expect(sentInCycleOne).toBeGreaterThanOrEqual(ROWS);
      expect(sentInCycleOne).toBeLessThanOrEqual(ROWS + DEFAULT_WATCH_CONCURRENCY);
      const remembered = await database.db.selectFrom('watch_rows').select('checked_cycle').execute();
      expect(remembered).toHaveLength(ROWS);
      expect(second.stderr()).toContain('watch running here');
    } finally {
      await database.close();
    }
  }, 180_000);
});

/**
 * What the tests of the real `hooksync serve` running a watch against HubSpot share: the simulator and the
 * HubSpot stand-in for the file, serve's environment with a HubSpot destination `crm` for watch changes, and
 * the wait for the watch's first cycle (the baseline).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';
import type { ServeFixture } from '../../helpers/spawn-serve.js';
import { writeWatchesEnv } from '../../helpers/watches-env.js';
import { until } from '../destinations/destinations-context.js';

/** The file's simulator and HubSpot stand-in (with hooksync's set-up properties), started once. */
export interface WatchCrmWorld {
  readonly sim: Simulator;
  readonly hs: HubSpotStandIn;
}

/** Starts the world before the file's tests (simulator seeded with `seed`) and closes it after them. */
export function useWatchCrmWorld(seed: number): WatchCrmWorld {
  const world = {} as { sim: Simulator; hs: HubSpotStandIn };
  beforeAll(async () => {
    world.sim = await createSimulator({ seed });
    world.hs = await startHubSpotStandIn({ tenSecondly: 10_000 });
    defineSetUpProperties(world.hs);
  });
  afterAll(async () => {
    await world.hs?.close();
    await world.sim?.close();
  });
  return world;
}

/**
 * serve's environment over `watches` in the fixture's folder, with info logs and the HubSpot destination
 * `crm` for watch changes at `baseUrl` (default the stand-in's).
 */
export async function serveWatchCrmEnv(
  world: WatchCrmWorld,
  fixture: ServeFixture,
  watches: unknown[],
  baseUrl = world.hs.url,
): Promise<Record<string, string>> {
  const destinations = join(fixture.dir, 'destinations.json');
  await writeFile(
    destinations,
    JSON.stringify({
      destinations: [
        {
          name: 'crm',
          type: 'hubspot',
          token: { env: 'HS_TOKEN' },
          base_url: baseUrl,
          rate: '100/1s',
          linger: '50ms',
          kinds: ['watch_change'],
        },
      ],
    }),
  );
  return writeWatchesEnv(world.sim, fixture.dir, watches, {
    HOOKSYNC_JWKS_URL: fixture.jwks.url,
    HOOKSYNC_DESTINATIONS: destinations,
    HS_TOKEN: world.hs.token,
    HOOKSYNC_LOG_LEVEL: 'info',
  });
}

/** The watch cycle `n` as recorded, if it has begun. */
export function watchCycle(database: HooksyncDatabase, n: number) {
  return database.db.selectFrom('watch_cycles').selectAll().where('cycle', '=', n).executeTakeFirst();
}

/** Waits for the first cycle, the baseline, to be finished. */
export async function untilBaseline(database: HooksyncDatabase): Promise<void> {
  await until(
    'cycle 1 (the baseline) is finished',
    async () => (await watchCycle(database, 1))?.finished_at != null,
    90_000,
  );
}

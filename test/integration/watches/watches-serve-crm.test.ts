/**
 * The real `hooksync serve` running a watch over HubSpot contacts (the HubSpot stand-in, the simulator, a
 * SQLite file): its first cycle takes the baseline inside serve, a later cycle sees a contact leave, and the
 * change reaches the CRM destination the watch names: the contact it read, by its hs_object_id, updated in
 * place. Conditions are waited for, never durations.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { openDatabase } from '../../../src/storage/open-database.js';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { writeWatchesEnv } from '../../helpers/watches-env.js';
import { until } from '../destinations/destinations-context.js';

const fixture = useServeFixture('hooksync-watch-crm-serve-');
let sim: Simulator;
let hs: HubSpotStandIn;
beforeAll(async () => {
  sim = await createSimulator({ seed: 13 });
  hs = await startHubSpotStandIn({ tenSecondly: 10_000 });
  defineSetUpProperties(hs);
});
afterAll(async () => {
  await hs?.close();
  await sim?.close();
});

describe('hooksync serve running a watch over HubSpot contacts', () => {
  it('runs its cycles inside serve and hands the change it detects to the CRM destination', async () => {
    const emails = ['ann.lee@acme.com', 'bo.chen@acme.com'];
    const ids = emails.map((email) =>
      hs.seed('contacts', { email, jobtitle: 'AE', company: 'Acme', lifecyclestage: 'customer' }),
    );
    // Not a customer: the source's filter leaves it out.
    hs.seed('contacts', { email: 'lead@acme.com', lifecyclestage: 'lead' });
    for (const email of emails)
      sim.setJobChange({ professional_email: email }, { job_change_status: 'no_change' });
    const destinations = join(fixture.dir, 'destinations.json');
    await writeFile(
      destinations,
      JSON.stringify({
        destinations: [
          {
            name: 'crm',
            type: 'hubspot',
            token: { env: 'HS_TOKEN' },
            base_url: hs.url,
            rate: '100/1s',
            linger: '50ms',
            kinds: ['watch_change'],
          },
        ],
      }),
    );
    const env = await writeWatchesEnv(
      sim,
      fixture.dir,
      [
        {
          name: 'crm-contacts',
          launch: 'job-change',
          from: { hubspot: { destination: 'crm', filter: { lifecyclestage: 'customer' } } },
          // The least period: cycle 2 starts 10 s after cycle 1.
          every: '10s',
        },
      ],
      {
        HOOKSYNC_JWKS_URL: fixture.jwks.url,
        HOOKSYNC_DESTINATIONS: destinations,
        HS_TOKEN: hs.token,
        HOOKSYNC_LOG_LEVEL: 'info',
      },
    );
    const serve = await spawnServe(env);
    const database = await openDatabase(env.HOOKSYNC_DATABASE_URL!);
    try {
      const cycle = (n: number) =>
        database.db.selectFrom('watch_cycles').selectAll().where('cycle', '=', n).executeTakeFirst();
      await until(
        'cycle 1 (the baseline) is finished',
        async () => (await cycle(1))?.finished_at != null,
        90_000,
      );
      expect(await cycle(1)).toMatchObject({ rows: 2, checked: 2, stopped: null });
      expect(await database.db.selectFrom('watch_changes').selectAll().execute()).toEqual([]);

      sim.setJobChange({ professional_email: emails[1]! }, { job_change_status: 'left' });
      const contact = () => hs.records('contacts').find((record) => record.id === ids[1])!;
      await until(
        'the change reaches HubSpot',
        () => contact().properties.hooksync_job_change_status === 'left',
        90_000,
      );
      const changes = await database.db.selectFrom('watch_changes').selectAll().execute();
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ watch: 'crm-contacts', change: 'left' });
      // Updated in place: the contact the source read, nothing created, the other contact untouched.
      expect(contact().properties).toMatchObject({ email: emails[1], jobtitle: 'AE' });
      expect(hs.records('contacts')).toHaveLength(3);
      expect(
        hs.records('contacts').find((record) => record.id === ids[0])!.properties.hooksync_job_change_status,
      ).toBeUndefined();
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
      expect(serve.stderr()).not.toContain(hs.token);
    } finally {
      if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
      await database.close();
    }
  }, 120_000);
});

/**
 * The real `hooksync serve` running a watch over HubSpot contacts (the HubSpot stand-in, the simulator, a
 * SQLite file): its first cycle takes the baseline inside serve, a later cycle sees a contact leave, and the
 * change reaches the CRM destination the watch names: the contact it read, by its hs_object_id, updated in
 * place. Conditions are waited for, never durations.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/storage/open-database.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { until } from '../destinations/destinations-context.js';
import { serveWatchCrmEnv, untilBaseline, useWatchCrmWorld, watchCycle } from './serve-watch-crm.js';

const fixture = useServeFixture('hooksync-watch-crm-serve-');
const world = useWatchCrmWorld(13);

describe('hooksync serve running a watch over HubSpot contacts', () => {
  it('runs its cycles inside serve and hands the change it detects to the CRM destination', async () => {
    const { sim, hs } = world;
    const emails = ['ann.lee@acme.com', 'bo.chen@acme.com'];
    const ids = emails.map((email) =>
      hs.seed('contacts', { email, jobtitle: 'AE', company: 'Acme', lifecyclestage: 'customer' }),
    );
    // Not a customer: the source's filter leaves it out.
    hs.seed('contacts', { email: 'lead@acme.com', lifecyclestage: 'lead' });
    for (const email of emails)
      sim.setJobChange({ professional_email: email }, { job_change_status: 'no_change' });
    const env = await serveWatchCrmEnv(world, fixture, [
      {
        name: 'crm-contacts',
        launch: 'job-change',
        from: { hubspot: { destination: 'crm', filter: { lifecyclestage: 'customer' } } },
        // The least period: cycle 2 starts 10 s after cycle 1.
        every: '10s',
      },
    ]);
    const serve = await spawnServe(env);
    const database = await openDatabase(env.HOOKSYNC_DATABASE_URL!);
    try {
      await untilBaseline(database);
      expect(await watchCycle(database, 1)).toMatchObject({ rows: 2, checked: 2, stopped: null });
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

/**
 * The real executable with a HubSpot destination, killed with SIGKILL in the middle of a batch (companies
 * written, contacts not yet): after the restart every acknowledged job is in HubSpot once, no company or
 * contact twice, every contact associated with its company, and every event delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { until } from './destinations-context.js';
import { postKillJobs, restartUntilDelivered, writeServeEnv } from './serve-kill.js';

const fixture = useServeFixture('hooksync-hubspot-kill-');
let hs: HubSpotStandIn;

beforeAll(async () => {
  hs = await startHubSpotStandIn();
  defineSetUpProperties(hs);
});
afterAll(async () => {
  await hs?.close();
});

describe('hooksync serve with a HubSpot destination, killed', () => {
  it('writes every acknowledged job once after a SIGKILL mid-batch', async () => {
    const env = writeServeEnv(
      fixture,
      'kill',
      {
        destinations: [
          { name: 'crm', type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hs.url, timeout: '2s' },
        ],
      },
      { HUBSPOT_TOKEN: hs.token },
    );
    // Slow answers: the process dies between the companies' upsert and the contacts'.
    hs.setLatency(400);
    const serve = await spawnServe(env);
    await postKillJobs(fixture, serve);
    await until(
      'the companies of the first batch are written',
      () => hs.records('companies').length > 0,
      20_000,
    );
    serve.child.kill('SIGKILL');
    expect(await serve.exited).toBe('SIGKILL');
    expect(hs.records('contacts').length).toBeLessThan(10);

    hs.setLatency(0);
    // The killed process's claims lapse after the batch timeout (3 turns of 2 s) plus a 10 s margin.
    const restartedStderr = await restartUntilDelivered(env, 60_000);
    const companies = hs.records('companies').map((c) => c.properties.hooksync_domain);
    expect(companies).toHaveLength(new Set(companies).size);
    expect(companies).toHaveLength(11); // 10 revealed, and Initech, the moved contacts' new employer
    const contacts = hs.records('contacts').map((c) => c.properties.email);
    expect(contacts.sort()).toEqual(
      Array.from({ length: 10 }, (_, k) => `maria.${2 * k + 1}@globex.com`).sort(),
    );
    const initech = hs.findBy('companies', 'hooksync_domain', 'initech.io')!;
    for (const contact of hs.records('contacts'))
      expect(hs.associations()).toContainEqual({ contactId: contact.id, companyId: initech.id, typeId: 279 });
    expect(restartedStderr + serve.stderr()).not.toContain(hs.token);
  }, 120_000);
});

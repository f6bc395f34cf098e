/**
 * The real executable with a HubSpot destination, killed with SIGKILL in the middle of a batch (companies
 * written, contacts not yet): after the restart every acknowledged job is in HubSpot once, no company or
 * contact twice, every contact associated with its company, and every event delivered.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';
import { deliver } from '../../helpers/receiver-harness.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { signDelivery } from '../../helpers/webhook-signer.js';
import { until } from './destinations-context.js';

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
    const file = join(fixture.dir, 'destinations.json');
    writeFileSync(
      file,
      JSON.stringify({
        destinations: [
          { name: 'crm', type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hs.url, timeout: '2s' },
        ],
      }),
    );
    const env = {
      HOOKSYNC_DATABASE_URL: join(fixture.dir, 'kill.db'),
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
      HOOKSYNC_DESTINATIONS: file,
      HUBSPOT_TOKEN: hs.token,
    };
    // Slow answers: the process dies between the companies' upsert and the contacts'.
    hs.setLatency(400);
    const serve = await spawnServe(env);
    const iat = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 20; i += 1) {
      const base = envelopeText(i % 2 === 0 ? 'company-reveal' : 'job-change-moved');
      const text = base.text
        .replaceAll('acme-robotics.com', `acme-${i}.com`)
        .replaceAll('maria.keller@globex.com', `maria.${i}@globex.com`);
      const answer = await deliver(
        serve.url,
        text,
        await signDelivery(text, { key: fixture.key, iat, jobId: base.jobId }),
      );
      expect(answer.status).toBe(200);
    }
    await until(
      'the companies of the first batch are written',
      () => hs.records('companies').length > 0,
      20_000,
    );
    serve.child.kill('SIGKILL');
    expect(await serve.exited).toBe('SIGKILL');
    expect(hs.records('contacts').length).toBeLessThan(10);

    hs.setLatency(0);
    const restarted = await spawnServe(env);
    const database = await openMigratedDatabase(env.HOOKSYNC_DATABASE_URL);
    try {
      // The killed process's claims lapse after the batch timeout (3 turns of 2 s) plus a 10 s margin.
      await until(
        'every event is delivered',
        async () => {
          const rows = await database.db.selectFrom('outbox_events').select('status').execute();
          return rows.length === 20 && rows.every((row) => row.status === 'delivered');
        },
        60_000,
      );
    } finally {
      await database.close();
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
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
    expect(restarted.stderr() + serve.stderr()).not.toContain(hs.token);
  }, 120_000);
});

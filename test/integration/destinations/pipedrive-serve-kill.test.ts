/**
 * The real executable with a Pipedrive destination, killed with SIGKILL in the middle of the sync (some
 * organizations written, the persons not yet; a create may be answered and not yet in the key → id map):
 * after the restart every acknowledged job is in Pipedrive once, no organization or person twice, every
 * person linked to its organization, and every event delivered.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type PipedriveStandIn, startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { addTemplateFields } from '../../helpers/pipedrive/store.js';
import { deliver } from '../../helpers/receiver-harness.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { signDelivery } from '../../helpers/webhook-signer.js';
import { until } from './destinations-context.js';

const fixture = useServeFixture('hooksync-pipedrive-kill-');
let pd: PipedriveStandIn;

beforeAll(async () => {
  // Search sees a write after 1 s (the stand-in's default lag): the restart must not depend on it.
  pd = await startPipedriveStandIn({ burst: 1_000, searchBurst: 1_000 });
});
afterAll(async () => {
  await pd?.close();
});

describe('hooksync serve with a Pipedrive destination, killed', () => {
  it('writes every acknowledged job once after a SIGKILL mid-sync', async () => {
    const keys = addTemplateFields(pd.store) as { domain: string };
    const file = join(fixture.dir, 'destinations.json');
    writeFileSync(
      file,
      JSON.stringify({
        destinations: [
          {
            name: 'crm',
            type: 'pipedrive',
            token: { env: 'PIPEDRIVE_TOKEN' },
            base_url: pd.url,
            timeout: '2s',
          },
        ],
      }),
    );
    const env = {
      HOOKSYNC_DATABASE_URL: join(fixture.dir, 'kill.db'),
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
      HOOKSYNC_DESTINATIONS: file,
      PIPEDRIVE_TOKEN: pd.token,
    };
    // Slow answers: the process dies with calls in flight.
    pd.setLatency(300);
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
    await until('some organizations are written', () => pd.store.live('organizations').length > 1, 30_000);
    serve.child.kill('SIGKILL');
    expect(await serve.exited).toBe('SIGKILL');
    expect(pd.store.live('organizations').length).toBeLessThan(11);

    pd.setLatency(0);
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
        90_000,
      );
    } finally {
      await database.close();
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
    const domains = pd.store.live('organizations').map((o) => o.custom_fields[keys.domain]);
    expect(domains).toHaveLength(new Set(domains).size);
    expect(domains).toHaveLength(11); // 10 revealed, and Initech, the moved persons' new employer
    const persons = pd.store.live('persons');
    const emails = persons.map((p) => (p.emails as Array<{ value: string }>)[0]!.value);
    expect(emails.sort()).toEqual(
      Array.from({ length: 10 }, (_, k) => `maria.${2 * k + 1}@globex.com`).sort(),
    );
    const initech = pd.store
      .live('organizations')
      .find((o) => o.custom_fields[keys.domain] === 'initech.io')!;
    for (const person of persons) expect(person.org_id).toBe(initech.id);
    expect(restarted.stderr() + serve.stderr()).not.toContain(pd.token);
  }, 150_000);
});

/**
 * The simulator as the sender: its signed webhooks are stored byte for byte as it holds them; unsigned
 * callbacks are replaced by the finder's copy; a key set that goes down does not stop known keys.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../src/client/create-client.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { getJob } from '../../../src/storage/job-queries.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { deliver, NOW_S, type ReceiverHarness, startHarness } from '../../helpers/receiver-harness.js';
import { until } from '../../helpers/until.js';
import { createSigningKey, signDelivery } from '../../helpers/webhook-signer.js';

describe('receiver with the simulator as its upstream', () => {
  let sim: Simulator;
  let h: ReceiverHarness;
  beforeAll(async () => {
    sim = await createSimulator({
      seed: 7,
      retryBaseMs: 20,
      rate: { perInterval: 1000, intervalSeconds: 60 },
    });
    h = await startHarness('sqlite', {
      env: {
        HOOKSYNC_JWKS_URL: sim.jwksUrl,
        HOOKSYNC_UNSIGNED: 'fetch',
        HOOKSYNC_API_BASE_URL: sim.url,
        HOOKSYNC_API_KEY: sim.apiKey,
      },
      receiver: { now: Date.now },
    });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('stores every signed webhook of the three kinds exactly as the simulator holds it', async () => {
    const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey });
    const webhook_url = `${h.url}/webhooks`;
    const launched = await Promise.all([
      client.companyReveal({ ip: '198.51.100.7', webhook_url }),
      client.companyReveal({ ip: '198.51.100.8', webhook_url, custom_fields: { lead: 'x' } }),
      client.searchContact.launch({ domain: 'acme.com', page_size: 25, webhook_url }),
      client.jobChange.launch({ contact_linkedin: 'https://www.linkedin.com/in/jane-doe', webhook_url }),
    ]);
    await sim.waitForDeliveries({ count: launched.length, timeoutMs: 10_000 });
    for (const { job } of launched) {
      const jobId = job.input.task.job_id as string;
      const row = await getJob(h.running.database.db, jobId);
      expect(row?.envelope, jobId).toBe(sim.jobText(jobId));
      expect(row?.source).toBe('webhook');
    }
    const kinds = (await h.running.database.db.selectFrom('jobs').select('kind').execute())
      .map((r) => r.kind)
      .sort();
    expect(kinds).toEqual(['company_reveal', 'company_reveal', 'job_change', 'search_contact']);
  });

  it('answers an unsigned callback with the finder copy, never the posted one', async () => {
    const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey });
    const { job, raw } = await client.searchContact.launch({ domain: 'globex.com', page_size: 3 });
    const jobId = job.input.task.job_id as string;
    const forged = raw.replace(/"first_name":"[^"]*"/, '"first_name":"Mallory"');
    const answer = await deliver(h.url, forged, undefined);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ job_id: jobId, kind: 'search_contact' });
    const row = await getJob(h.running.database.db, jobId);
    expect(row?.envelope).toBe(sim.jobText(jobId));
    expect(row?.source).toBe('finder');
  });

  it('quarantines an unsigned company reveal: the interface has no finder for it', async () => {
    const { text, jobId } = envelopeText('company-reveal');
    const answer = await deliver(h.url, text, undefined);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'NO_FINDER' });
    expect(await getJob(h.running.database.db, jobId)).toBeUndefined();
  });

  it('refuses an unsigned callback for a job the finder does not know', async () => {
    const { text } = envelopeText('job-change-moved', randomUUID());
    const answer = await deliver(h.url, text, undefined);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'FINDER_REFUSED' });
  });
});

describe('receiver when its key set goes down', () => {
  let h: ReceiverHarness;
  beforeAll(async () => {
    h = await startHarness('sqlite');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('keeps verifying with the key it holds, and answers 500 for an unknown kid', async () => {
    h.jwks.down = true;
    const { text, jobId } = envelopeText('company-reveal');
    const ok = await deliver(h.url, text, await signDelivery(text, { key: h.key, iat: NOW_S, jobId }));
    expect(ok.status).toBe(200);

    const other = envelopeText('company-reveal');
    const rotated = await createSigningKey('rotated-kid');
    const answer = await deliver(
      h.url,
      other.text,
      await signDelivery(other.text, { key: rotated, iat: NOW_S, jobId: other.jobId }),
    );
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ code: 'KEYSET_UNAVAILABLE' });
    expect(answer.headers.get('retry-after')).toBe('1');

    // Back up with the rotated key published: the sender's retry succeeds once the unknown-kid cooldown
    // (1 ms here) has passed; one within it is answered 500 again, which the service retries.
    h.jwks.keys.push(rotated.publicJwk);
    h.jwks.down = false;
    const retried = await until(
      async () => {
        const answer = await deliver(
          h.url,
          other.text,
          await signDelivery(other.text, { key: rotated, iat: NOW_S, jobId: other.jobId }),
        );
        return answer.status === 200 && answer;
      },
      { message: 'a retry signed with the rotated key is accepted', interval: 1 },
    );
    expect(retried.status).toBe(200);
  });
});

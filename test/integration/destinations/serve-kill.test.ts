/**
 * The real executable with a destination: SIGKILL while events are pending (some in flight) loses none;
 * after the restart every acknowledged job reaches the consumer, verified by `standardwebhooks`. This also
 * covers serve's store on its worker thread writing the outbox in its own transactions.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { deliver } from '../../helpers/receiver-harness.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import {
  createWebhookSecret,
  type StandardWebhookConsumer,
  startStandardWebhookConsumer,
} from '../../helpers/standard-webhook-consumer.js';
import { signDelivery } from '../../helpers/webhook-signer.js';
import { until } from './destinations-context.js';

const fixture = useServeFixture('hooksync-dest-kill-');
let consumer: StandardWebhookConsumer;
const secret = createWebhookSecret();

beforeAll(async () => {
  consumer = await startStandardWebhookConsumer(secret);
});
afterAll(async () => {
  await consumer?.close();
});

describe('hooksync serve with a destination, killed', () => {
  it('delivers every acknowledged job after a SIGKILL with events pending', async () => {
    const file = join(fixture.dir, 'destinations.json');
    writeFileSync(
      file,
      JSON.stringify({
        destinations: [
          {
            name: 'warehouse',
            type: 'webhook',
            url: consumer.url,
            secret: { env: 'HOOK_SECRET' },
            timeout: '1s',
            concurrency: 2,
          },
        ],
      }),
    );
    const env = {
      HOOKSYNC_DATABASE_URL: join(fixture.dir, 'kill.db'),
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
      HOOKSYNC_DESTINATIONS: file,
      HOOK_SECRET: secret,
    };
    // Slow at first: most events are still pending (two in flight) when the process dies.
    consumer.answer(() => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 300)));
    const serve = await spawnServe(env);
    const iat = Math.floor(Date.now() / 1000);
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const { text, jobId } = envelopeText(i % 2 === 0 ? 'company-reveal' : 'job-change-moved');
      const answer = await deliver(
        serve.url,
        text,
        await signDelivery(text, { key: fixture.key, iat, jobId }),
      );
      expect(answer.status).toBe(200);
      acknowledged.push(jobId);
    }
    await until('the first events are being delivered', () => consumer.verified.length >= 1);
    serve.child.kill('SIGKILL');
    expect(await serve.exited).toBe('SIGKILL');
    const beforeRestart = new Set(consumer.accepted().map((entry) => entry.event.data.job_id));
    expect(beforeRestart.size).toBeLessThan(acknowledged.length);

    consumer.answer(() => ({ status: 200 }));
    const restarted = await spawnServe(env);
    try {
      // Claims of the killed process lapse after the attempt timeout plus a margin (about 11 s).
      await until(
        'every acknowledged job is delivered',
        () => {
          const got = new Set(consumer.accepted().map((entry) => entry.event.data.job_id));
          return acknowledged.every((jobId) => got.has(jobId));
        },
        45_000,
      );
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
    expect(consumer.rejected).toEqual([]);
    const stderr = restarted.stderr() + serve.stderr();
    expect(stderr).not.toContain(secret.slice(6, 20));
  }, 90_000);
});

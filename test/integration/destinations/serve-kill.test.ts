/**
 * The real executable with a destination: SIGKILL while events are pending (some in flight) loses none;
 * after the restart every acknowledged job reaches the consumer, verified by `standardwebhooks`. This also
 * covers serve's store on its worker thread writing the outbox in its own transactions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { deliver } from '../../helpers/receiver-harness.js';
import { spawnServe } from '../../helpers/spawn-serve.js';
import {
  createWebhookSecret,
  type StandardWebhookConsumer,
  startStandardWebhookConsumer,
} from '../../helpers/standard-webhook-consumer.js';
import {
  createSigningKey,
  type JwksServer,
  type SigningKey,
  signDelivery,
  startJwksServer,
} from '../../helpers/webhook-signer.js';
import { until } from './destinations-context.js';

let key: SigningKey;
let jwks: JwksServer;
let consumer: StandardWebhookConsumer;
let dir: string;
const secret = createWebhookSecret();

beforeAll(async () => {
  key = await createSigningKey();
  jwks = await startJwksServer([key.publicJwk]);
  consumer = await startStandardWebhookConsumer(secret);
  dir = mkdtempSync(join(tmpdir(), 'hooksync-dest-kill-'));
});
afterAll(async () => {
  await jwks?.close();
  await consumer?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hooksync serve with a destination, killed', () => {
  it('delivers every acknowledged job after a SIGKILL with events pending', async () => {
    const file = join(dir, 'destinations.json');
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
      HOOKSYNC_DATABASE_URL: join(dir, 'kill.db'),
      HOOKSYNC_JWKS_URL: jwks.url,
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
      const answer = await deliver(serve.url, text, await signDelivery(text, { key, iat, jobId }));
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

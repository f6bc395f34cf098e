/**
 * The executable with OTEL_EXPORTER_OTLP_ENDPOINT (issue 40): one signed delivery forwarded to a webhook
 * destination is one trace at the collector, the onward request's traceparent names it, and SIGTERM flushes
 * the spans before serve exits 0.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type OtlpCollector, startOtlpCollector } from '../../helpers/otlp-collector.js';
import { deliver } from '../../helpers/receiver-harness.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { createWebhookSecret } from '../../helpers/standard-webhook-consumer.js';
import { until } from '../../helpers/until.js';
import { signDelivery } from '../../helpers/webhook-signer.js';
import { type Receiver, startReceiver as startOnward } from '../simulator/helpers/receiver.js';

const fixture = useServeFixture('hooksync-serve-otel-');

describe('serve with an OTLP endpoint', () => {
  let collector: OtlpCollector;
  let onward: Receiver;

  beforeAll(async () => {
    collector = await startOtlpCollector();
    onward = await startOnward(() => 200);
  });
  afterAll(async () => {
    await onward.close();
    await collector.close();
  });

  it('exports one trace from the socket to the onward webhook, flushed on SIGTERM', async () => {
    const destinations = join(fixture.dir, 'destinations.json');
    writeFileSync(
      destinations,
      JSON.stringify({
        $schema: './destinations.schema.json',
        destinations: [{ name: 'onward', type: 'webhook', url: onward.url, secret: createWebhookSecret() }],
      }),
    );
    const serve = await spawnServe({
      HOOKSYNC_DATABASE_URL: join(fixture.dir, 'hooksync.db'),
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
      HOOKSYNC_DESTINATIONS: destinations,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    const { text, jobId } = envelopeText('company-reveal');
    const iat = Math.floor(Date.now() / 1000);
    const answer = await deliver(serve.url, text, await signDelivery(text, { key: fixture.key, iat, jobId }));
    expect(answer.status).toBe(200);
    await until(() => onward.requests.length === 1, { message: 'the job is forwarded' });
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    const [, traceId] = String(onward.requests[0]!.headers.traceparent).split('-');
    const delivery = collector.spans.find((span) => span.name === 'POST /webhooks');
    expect(delivery?.attributes['hooksync.job.id']).toBe(jobId);
    expect(delivery?.traceId).toBe(traceId);
    const names = collector.spans.filter((span) => span.traceId === traceId).map((span) => span.name);
    expect(names.sort()).toEqual(['POST', 'POST /webhooks', 'deliver onward']);
  });
});

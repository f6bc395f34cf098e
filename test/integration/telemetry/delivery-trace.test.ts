/**
 * OpenTelemetry end to end (issue 40): a signed delivery stored and forwarded to a webhook destination is one
 * trace at a real OTLP/HTTP collector stand-in, from the server span on /webhooks through the destination
 * attempt (continued from the traceparent kept with the outbox event) to the onward request, whose
 * traceparent names that trace. An unreachable collector costs receiving nothing and its spans are counted
 * as dropped.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDestinations } from '../../../src/destinations/load-destinations.js';
import { startTelemetry } from '../../../src/telemetry/start-telemetry.js';
import type { Telemetry } from '../../../src/telemetry/telemetry.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type CollectedSpan, type OtlpCollector, startOtlpCollector } from '../../helpers/otlp-collector.js';
import { deliver, NOW_S, startHarness } from '../../helpers/receiver-harness.js';
import { createWebhookSecret } from '../../helpers/standard-webhook-consumer.js';
import { until } from '../../helpers/until.js';
import { signDelivery } from '../../helpers/webhook-signer.js';
import { type Receiver, startReceiver as startOnward } from '../simulator/helpers/receiver.js';

const SERVER = 2;
const CLIENT = 3;

describe('a delivery forwarded to a webhook destination, traced', () => {
  let collector: OtlpCollector;
  let onward: Receiver;
  let telemetry: Telemetry;
  let jobId: string;
  let signature: string;
  let traceParent: string;

  beforeAll(async () => {
    collector = await startOtlpCollector();
    onward = await startOnward(() => 200);
    telemetry = (await startTelemetry(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'hooksync-under-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,team=rev%20ops',
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_METRIC_EXPORT_INTERVAL: '3600000',
      },
      { version: '9.9.9' },
    ))!;
    const destinations = await parseDestinations(
      { destinations: [{ name: 'onward', type: 'webhook', url: onward.url, secret: createWebhookSecret() }] },
      {},
      'test destinations',
    );
    const harness = await startHarness('sqlite', { receiver: { telemetry, destinations } });
    try {
      const envelope = envelopeText('company-reveal');
      jobId = envelope.jobId;
      signature = await signDelivery(envelope.text, { key: harness.key, iat: NOW_S, jobId });
      const answer = await deliver(harness.url, envelope.text, signature);
      expect(answer.status).toBe(200);
      await until(() => onward.requests.length === 1, { message: 'the job is forwarded' });
      traceParent = String(onward.requests[0]!.headers.traceparent);
    } finally {
      await harness.close();
      // Spans are flushed at a graceful stop.
      await telemetry.shutdown();
    }
  });

  afterAll(async () => {
    await onward.close();
    await collector.close();
  });

  const one = (predicate: (span: CollectedSpan) => boolean): CollectedSpan => {
    const found = collector.spans.filter(predicate);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it('is one trace, whose id the onward traceparent carries', () => {
    expect(traceParent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, spanId] = traceParent.split('-');
    const delivery = one((span) => span.name === 'POST /webhooks');
    expect(delivery.traceId).toBe(traceId);
    expect(delivery.kind).toBe(SERVER);
    expect(delivery.parentSpanId).toBe('');
    const attempt = one((span) => span.name === 'deliver onward');
    // The attempt is a child of the delivery that stored the job, across the outbox.
    expect(attempt.traceId).toBe(traceId);
    expect(attempt.parentSpanId).toBe(delivery.spanId);
    // The onward request is a client span under the attempt, and the traceparent names it.
    const call = one((span) => span.kind === CLIENT && span.parentSpanId === attempt.spanId);
    expect(call.spanId).toBe(spanId);
    expect(call.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
    });
    expect(delivery.events).toEqual(['verified']);
  });

  it('says what happened, never the token or the body', () => {
    const delivery = one((span) => span.name === 'POST /webhooks');
    expect(delivery.attributes).toMatchObject({
      'hooksync.job.id': jobId,
      'hooksync.job.kind': 'company_reveal',
      'hooksync.outcome': 'stored',
      'http.response.status_code': 200,
    });
    expect(delivery.attributes['http.request.body.size']).toBeGreaterThan(100);
    expect(one((span) => span.name === 'deliver onward').attributes).toMatchObject({
      'hooksync.destination': 'onward',
      'hooksync.destination.type': 'webhook',
      'hooksync.events': 1,
      'hooksync.outcome': 'delivered',
    });
    const everything = JSON.stringify(collector.spans);
    expect(everything).not.toContain(signature.slice(-40));
    expect(everything).not.toContain('"envelope"');
  });

  it('names the service and its resource attributes', () => {
    for (const span of collector.spans) {
      expect(span.resource).toMatchObject({
        'service.name': 'hooksync-under-test',
        'service.version': '9.9.9',
        'deployment.environment': 'test',
        team: 'rev ops',
      });
    }
  });

  it('exports the /metrics instruments over OTLP when OTEL_METRICS_EXPORTER=otlp', () => {
    expect(collector.metricNames).toContain('hooksync_deliveries_total');
    expect(collector.metricNames).toContain('hooksync_otel_spans_dropped_total');
  });
});

describe('an unreachable collector', () => {
  it('slows and fails no delivery; its spans are counted as dropped', async () => {
    // A port nothing listens on.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const telemetry = (await startTelemetry({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
      OTEL_BSP_MAX_QUEUE_SIZE: '2',
    }))!;
    const harness = await startHarness('sqlite', { receiver: { telemetry } });
    try {
      for (let i = 0; i < 8; i++) {
        const { text, jobId } = envelopeText('company-reveal');
        const answer = await deliver(
          harness.url,
          text,
          await signDelivery(text, { key: harness.key, iat: NOW_S, jobId }),
        );
        expect(answer.status).toBe(200);
      }
      // A queue of two spans: while the first batch waits on the dead collector, two more queue up and the
      // rest are dropped at once (the queued ones when their export fails).
      expect(telemetry.stats().droppedSpans).toBeGreaterThan(0);
      const metrics = await (await fetch(`${harness.url}/metrics`)).text();
      expect(metrics).toMatch(/^hooksync_otel_spans_dropped_total [1-9]/m);
    } finally {
      await harness.close();
      await telemetry.shutdown(1000);
    }
    expect(telemetry.stats().exportedSpans).toBe(0);
  });
});

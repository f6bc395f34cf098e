/**
 * An OTLP/HTTP collector stand-in on 127.0.0.1, port 0, written from the OTLP specification (JSON
 * encoding): it takes POST /v1/traces and /v1/metrics, answers 200 with an empty partial-success
 * object, and keeps what it decoded. Spans are flattened with their resource's attributes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An attribute value as OTLP/JSON writes it. */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

/** One exported span, flattened. */
export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, string | number | boolean | undefined>;
  readonly resource: Record<string, string | number | boolean | undefined>;
  readonly links: ReadonlyArray<{ traceId: string; spanId: string }>;
  readonly status: { code?: number; message?: string };
  readonly events: readonly string[];
}

export interface OtlpCollector {
  /** The base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT). */
  readonly url: string;
  readonly spans: CollectedSpan[];
  /** Metric names seen in metric exports. */
  readonly metricNames: Set<string>;
  /** Requests answered, by path. */
  readonly requests: string[];
  close(): Promise<void>;
}

type KeyValue = { key: string; value: AnyValue };

function decodeValue(value: AnyValue): string | number | boolean | undefined {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean | undefined> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, decodeValue(value)]));
}

/** Starts the collector. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const metricNames = new Set<string>();
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push(request.url ?? '');
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (request.url === '/v1/traces') {
        for (const resourceSpans of body.resourceSpans ?? []) {
          const resource = attributesOf(resourceSpans.resource?.attributes);
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                resource,
                links: (span.links ?? []).map((link: { traceId: string; spanId: string }) => ({
                  traceId: link.traceId,
                  spanId: link.spanId,
                })),
                status: span.status ?? {},
                events: (span.events ?? []).map((event: { name: string }) => event.name),
              });
            }
          }
        }
      } else if (request.url === '/v1/metrics') {
        for (const resourceMetrics of body.resourceMetrics ?? []) {
          for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
            for (const metric of scopeMetrics.metrics ?? []) metricNames.add(metric.name);
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metricNames,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

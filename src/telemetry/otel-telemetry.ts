/**
 * {@link Telemetry} through the OpenTelemetry JS SDK (issue 40): a tracer provider of its own (nothing is
 * registered globally), the active span kept in AsyncLocalStorage, spans exported over OTLP/HTTP in batches
 * through a bounded queue, W3C traceparent to carry a trace across the outbox and onward. Imported only when
 * tracing is on (start-telemetry.ts).
 */
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { Registry } from 'prom-client';
import type { TelemetryConfig } from '../config/load-telemetry-config.js';
import { BoundedSpanProcessor } from './bounded-span-processor.js';
import { exportRegistryMetrics } from './export-registry-metrics.js';
import type { SpanAttributes, SpanKindName, SpanOptions, Telemetry } from './telemetry.js';
import { tracedFetch } from './traced-fetch.js';

/** How long a flush or the shutdown waits for the last spans to leave, ms (serve's stop is not held up longer). */
export const DEFAULT_FLUSH_TIMEOUT_MS = 2000;
/** The instrumentation scope of hooksync's spans. */
const SCOPE = 'hooksync';

const KINDS: Readonly<Record<SpanKindName, SpanKind>> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  internal: SpanKind.INTERNAL,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

/** Builds the telemetry for `config`. `version` goes on the resource as service.version. */
export async function createOtelTelemetry(config: TelemetryConfig, version: string): Promise<Telemetry> {
  const resource = resourceFromAttributes({
    'service.version': version,
    ...config.resourceAttributes,
    'service.name': config.serviceName,
  });
  const exporter = await createSpanExporter(config);
  const processor = new BoundedSpanProcessor(
    exporter,
    config.maxQueueSize,
    (counted) => new BatchSpanProcessor(counted, { maxQueueSize: config.maxQueueSize }),
  );
  const provider = new BasicTracerProvider({
    resource,
    sampler: samplerOf(config),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer(SCOPE, version);
  const contexts = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();
  let metrics: { flush(): Promise<void>; stop(): Promise<void> } | undefined;

  const parentOf = (traceParent: string | undefined): Context => {
    if (traceParent === undefined) return contexts.active();
    const extracted = propagator.extract(ROOT_CONTEXT, { traceparent: traceParent }, defaultTextMapGetter);
    return trace.getSpanContext(extracted) === undefined ? contexts.active() : extracted;
  };
  const linksOf = (traceParents: readonly string[] | undefined): Link[] => {
    const links: Link[] = [];
    for (const traceParent of traceParents ?? []) {
      const context = trace.getSpanContext(
        propagator.extract(ROOT_CONTEXT, { traceparent: traceParent }, defaultTextMapGetter),
      );
      if (context !== undefined) links.push({ context });
    }
    return links;
  };
  const traceParentOf = (context: Context): string | undefined => {
    const span = trace.getSpan(context);
    if (span === undefined || !span.isRecording()) return undefined;
    const carrier: Record<string, string> = {};
    propagator.inject(context, carrier, defaultTextMapSetter);
    return carrier.traceparent;
  };

  const open = (name: string, options: SpanOptions, parent: Context) =>
    tracer.startSpan(
      name,
      {
        kind: KINDS[options.kind ?? 'internal'],
        attributes: cleanAttributes(options.attributes),
        links: linksOf(options.links),
      },
      parent,
    );
  const scopeOf = (span: Span) => ({
    set: (attributes: SpanAttributes) => void span.setAttributes(cleanAttributes(attributes)),
    event: (name: string) => void span.addEvent(name),
    fail: (message: string) => void span.setStatus({ code: SpanStatusCode.ERROR, message }),
  });

  const telemetry: Telemetry = {
    startSpan(name, options) {
      const span = open(name, options, parentOf(options.parent));
      return {
        ...scopeOf(span),
        traceParent: traceParentOf(trace.setSpan(ROOT_CONTEXT, span)),
        end: () => span.end(),
      };
    },
    async inSpan(name, options: SpanOptions, work) {
      const parent = parentOf(options.parent);
      const span = open(name, options, parent);
      const scope = scopeOf(span);
      try {
        return await contexts.with(trace.setSpan(parent, span), () => work(scope));
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
        throw error;
      } finally {
        span.end();
      }
    },
    traceParent: () => traceParentOf(contexts.active()),
    tracedFetch: (fetch = globalThis.fetch) => tracedFetch(telemetry, fetch),
    stats: () => processor.stats(),
    exportMetrics(registry: Registry) {
      metrics = exportRegistryMetrics(registry, processor, config, resource);
    },
    async flush(timeoutMs = DEFAULT_FLUSH_TIMEOUT_MS) {
      await within(timeoutMs, Promise.allSettled([provider.forceFlush(), metrics?.flush()]));
    },
    async shutdown(timeoutMs = DEFAULT_FLUSH_TIMEOUT_MS) {
      await within(timeoutMs, Promise.allSettled([provider.shutdown(), metrics?.stop()]));
      contexts.disable();
    },
  };
  return telemetry;
}

/** Waits for `work`, at most `timeoutMs`: an unreachable collector never holds up a stop. */
async function within(timeoutMs: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

async function createSpanExporter(config: TelemetryConfig): Promise<SpanExporter> {
  if (config.tracesProtocol === 'http/protobuf') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
    return new OTLPTraceExporter({ url: config.tracesUrl });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter({ url: config.tracesUrl });
}

function samplerOf(config: TelemetryConfig): Sampler {
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(config.samplerRatio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.samplerRatio) });
  }
}

function cleanAttributes(attributes: SpanAttributes | undefined): Attributes {
  const clean: Attributes = {};
  if (attributes === undefined) return clean;
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) clean[key] = value;
  return clean;
}

/** An error's class name only: a message may carry what a remote party sent. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

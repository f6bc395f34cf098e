/**
 * What hooksync asks of tracing (issue 40), free of the OpenTelemetry SDK: code that traces holds an optional
 * {@link Telemetry} and does nothing when it is absent (OTel off, the default), so that the hot path pays one
 * property check. The SDK behind it (otel-telemetry.ts) is imported only when tracing is turned on
 * (start-telemetry.ts).
 */

import type { Registry } from 'prom-client';

/** The kinds of span hooksync makes (OpenTelemetry's SpanKind, by name). */
export type SpanKindName = 'server' | 'client' | 'internal' | 'producer' | 'consumer';

/** Span attribute values; undefined ones are left out. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A span while its work runs. */
export interface SpanScope {
  /** Adds attributes (never a token, a key or a body). */
  set(attributes: SpanAttributes): void;
  /** Records a moment of the work (`verified`) as an event of the span. */
  event(name: string): void;
  /** Marks the span as failed with a short message (the work still returns normally). */
  fail(message: string): void;
}

/** A span started by {@link Telemetry.startSpan}: not the active one; the caller ends it. */
export interface OpenSpan extends SpanScope {
  /** Its W3C traceparent, when it is recording (sampled). */
  readonly traceParent: string | undefined;
  end(): void;
}

/** How a span starts. */
export interface SpanOptions {
  readonly kind?: SpanKindName;
  readonly attributes?: SpanAttributes;
  /**
   * A W3C traceparent to continue (a stored outbox event's): the span becomes its child instead of the
   * active span's. An invalid or absent one starts from the active span (or a new trace).
   */
  readonly parent?: string | undefined;
  /** Other traceparents this span works for (the rest of a batch): recorded as links. */
  readonly links?: readonly string[];
}

/** What the tracing costs and drops, for /metrics. */
export interface TelemetryStats {
  /** Spans ended and handed to the export queue. */
  readonly queuedSpans: number;
  /** Spans the collector took. */
  readonly exportedSpans: number;
  /** Spans dropped: the queue was full, or the collector refused or could not be reached. */
  readonly droppedSpans: number;
}

/** Tracing (and, when asked, OTLP metrics) through the OpenTelemetry SDK. */
export interface Telemetry {
  /** Runs `work` in a new span, active for everything it calls; a throw marks the span failed and is rethrown. */
  inSpan<T>(name: string, options: SpanOptions, work: (span: SpanScope) => Promise<T>): Promise<T>;
  /**
   * Starts a span without making it the active one (no async context entered: the receiver's hot path);
   * its parent is `options.parent` or the active span. The caller ends it.
   */
  startSpan(name: string, options: SpanOptions): OpenSpan;
  /** The W3C traceparent of the active span, when one is recording. */
  traceParent(): string | undefined;
  /** `fetch` making a client span of each call and sending its traceparent (docs/operations.md). */
  tracedFetch(fetch?: typeof globalThis.fetch): typeof globalThis.fetch;
  stats(): TelemetryStats;
  /**
   * Adds the tracing's own counters to `registry` (prom-client) and, with OTEL_METRICS_EXPORTER=otlp,
   * exports the registry's instruments over OTLP as well.
   */
  exportMetrics(registry: Registry): void;
  /** Exports what is queued now, spans and (with OTLP metrics) a reading of the instruments; at most `timeoutMs`. */
  flush(timeoutMs?: number): Promise<void>;
  /** Flushes what is queued (at most `timeoutMs`) and stops exporting. */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * The export queue's bound, counted (issue 40): spans ended while the queue holds `maxQueueSize` are dropped
 * here and counted, and so are spans the collector refused or could not be reached for. The batch processor
 * behind exports in the background, so an unreachable collector never slows the work that makes spans.
 */
import type { Context } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TelemetryStats } from './telemetry.js';

/** Builds the processor that queues and exports in batches, given the exporter to use. */
export type BatchProcessorFactory = (exporter: SpanExporter) => SpanProcessor;

/** A span processor that bounds and counts what waits for export. */
export class BoundedSpanProcessor implements SpanProcessor {
  readonly #inner: SpanProcessor;
  readonly #maxQueueSize: number;
  #waiting = 0;
  #queued = 0;
  #exported = 0;
  #dropped = 0;

  constructor(exporter: SpanExporter, maxQueueSize: number, batch: BatchProcessorFactory) {
    this.#maxQueueSize = maxQueueSize;
    this.#inner = batch(this.#counting(exporter));
  }

  onStart(span: Span, parentContext: Context): void {
    this.#inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (!span.spanContext().traceFlags) return;
    if (this.#waiting >= this.#maxQueueSize) {
      this.#dropped++;
      return;
    }
    this.#waiting++;
    this.#queued++;
    this.#inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  stats(): TelemetryStats {
    return { queuedSpans: this.#queued, exportedSpans: this.#exported, droppedSpans: this.#dropped };
  }

  /** `exporter`, counting what leaves the queue and how its export ended. */
  #counting(exporter: SpanExporter): SpanExporter {
    return {
      export: (spans, resultCallback) => {
        this.#waiting = Math.max(0, this.#waiting - spans.length);
        exporter.export(spans, (result: ExportResult) => {
          if (result.code === ExportResultCode.SUCCESS) this.#exported += spans.length;
          else this.#dropped += spans.length;
          resultCallback(result);
        });
      },
      shutdown: () => exporter.shutdown(),
      ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush!() } : {}),
    };
  }
}

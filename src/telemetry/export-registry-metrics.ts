/**
 * OTLP metrics of the same instruments /metrics shows (issue 40, OTEL_METRICS_EXPORTER=otlp): the
 * prom-client registry is read at each export and its counters, gauges and histograms handed to the
 * OpenTelemetry metrics SDK as a metric producer (cumulative, as Prometheus counts). The Prometheus endpoint
 * stays as it is. Also registers the tracing's own counters (spans queued, exported, dropped) on the registry.
 */
import { type Attributes, type HrTime, ValueType } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type CollectionResult,
  type DataPoint,
  DataPointType,
  type Histogram,
  MeterProvider,
  type MetricData,
  type MetricProducer,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { Counter, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import type { TelemetryConfig } from '../config/load-telemetry-config.js';
import type { TelemetryStats } from './telemetry.js';

/** Registers the span counters on `registry`; with `config.metrics`, starts exporting. */
export function exportRegistryMetrics(
  registry: Registry,
  spans: { stats(): TelemetryStats },
  config: TelemetryConfig,
  resource: Resource,
): { flush(): Promise<void>; stop(): Promise<void> } | undefined {
  registerSpanCounters(registry, spans);
  const metrics = config.metrics;
  if (metrics === undefined) return undefined;
  let provider: MeterProvider | undefined;
  const started = (async () => {
    const exporter = await createMetricExporter(metrics.url, metrics.protocol);
    provider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis: metrics.intervalMs,
          exportTimeoutMillis: Math.min(30_000, metrics.intervalMs),
          metricProducers: [registryProducer(registry, resource)],
        }),
      ],
    });
  })();
  return {
    async flush() {
      await started;
      await provider?.forceFlush();
    },
    async stop() {
      await started;
      await provider?.shutdown();
    },
  };
}

function registerSpanCounters(registry: Registry, spans: { stats(): TelemetryStats }): void {
  const counters: Array<[string, string, keyof TelemetryStats]> = [
    ['hooksync_otel_spans_queued_total', 'Spans handed to the OTLP export queue', 'queuedSpans'],
    ['hooksync_otel_spans_exported_total', 'Spans the OTLP collector accepted', 'exportedSpans'],
    [
      'hooksync_otel_spans_dropped_total',
      'Spans dropped: export queue full, or the collector refused or could not be reached',
      'droppedSpans',
    ],
  ];
  for (const [name, help, stat] of counters) {
    if (registry.getSingleMetric(name) !== undefined) continue;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(spans.stats()[stat]);
      },
    });
  }
}

async function createMetricExporter(url: string, protocol: string): Promise<PushMetricExporter> {
  if (protocol === 'http/protobuf') {
    const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-proto');
    return new OTLPMetricExporter({ url });
  }
  const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
  return new OTLPMetricExporter({ url });
}

/** The registry as a metric producer: each collection reads it afresh. */
export function registryProducer(registry: Registry, resource: Resource): MetricProducer {
  const startTime = millisToHrTime(Date.now());
  return {
    async collect(): Promise<CollectionResult> {
      const now = millisToHrTime(Date.now());
      const metrics: MetricData[] = [];
      let read: MetricObjectWithValues<MetricValue<string>>[];
      try {
        read = (await registry.getMetricsAsJSON()) as MetricObjectWithValues<MetricValue<string>>[];
      } catch (error) {
        // A gauge that reads the database fails once it is closed: nothing is exported this time.
        return { resourceMetrics: { resource, scopeMetrics: [] }, errors: [error] };
      }
      for (const metric of read) {
        const data = toMetricData(metric, startTime, now);
        if (data !== undefined) metrics.push(data);
      }
      return {
        resourceMetrics: { resource, scopeMetrics: [{ scope: { name: 'hooksync' }, metrics }] },
        errors: [],
      };
    },
  };
}

function toMetricData(
  metric: MetricObjectWithValues<MetricValue<string>>,
  startTime: HrTime,
  endTime: HrTime,
): MetricData | undefined {
  const descriptor = { name: metric.name, description: metric.help, unit: '', valueType: ValueType.DOUBLE };
  const point = (value: MetricValue<string>): DataPoint<number> => ({
    startTime,
    endTime,
    attributes: value.labels as Attributes,
    value: value.value,
  });
  switch (String(metric.type)) {
    case 'counter':
      return {
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints: metric.values.map(point),
      };
    case 'gauge':
      return {
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.GAUGE,
        dataPoints: metric.values.map(point),
      };
    case 'histogram':
      return {
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints: histogramPoints(metric, startTime, endTime),
      };
    default:
      // Summaries have no OTLP counterpart the SDK exports; none of hooksync's instruments is one.
      return undefined;
  }
}

/** prom-client's bucket/sum/count series of one histogram, grouped by their labels (without `le`). */
function histogramPoints(
  metric: MetricObjectWithValues<MetricValue<string>>,
  startTime: HrTime,
  endTime: HrTime,
): DataPoint<Histogram>[] {
  const series = new Map<
    string,
    { labels: Attributes; le: Array<[number, number]>; sum: number; count: number }
  >();
  for (const value of metric.values as Array<MetricValue<string> & { metricName?: string }>) {
    const { le, ...labels } = value.labels as Record<string, string | number>;
    const key = JSON.stringify(Object.entries(labels).sort());
    let entry = series.get(key);
    if (entry === undefined) {
      entry = { labels, le: [], sum: 0, count: 0 };
      series.set(key, entry);
    }
    const name = value.metricName ?? '';
    if (name.endsWith('_bucket')) entry.le.push([le === '+Inf' ? Infinity : Number(le), value.value]);
    else if (name.endsWith('_sum')) entry.sum = value.value;
    else if (name.endsWith('_count')) entry.count = value.value;
  }
  return [...series.values()].map(({ labels, le, sum, count }) => {
    le.sort((a, b) => a[0] - b[0]);
    const boundaries = le.filter(([bound]) => Number.isFinite(bound)).map(([bound]) => bound);
    // Prometheus buckets are cumulative (≤ le); OTLP's count each bucket alone.
    const counts = le.map(([, cumulative], index) => cumulative - (index > 0 ? le[index - 1]![1] : 0));
    return {
      startTime,
      endTime,
      attributes: labels,
      value: { buckets: { boundaries, counts }, sum, count },
    };
  });
}

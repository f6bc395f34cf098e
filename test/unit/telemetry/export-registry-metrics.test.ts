/** The /metrics instruments as OTLP metric data (issue 40): counters, gauges and histograms, per label set. */
import { resourceFromAttributes } from '@opentelemetry/resources';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registryProducer } from '../../../src/telemetry/export-registry-metrics.js';

describe('registryProducer', () => {
  it('reads the registry afresh at each collection, as cumulative data', async () => {
    const registry = new Registry();
    const counter = new Counter({
      name: 'c_total',
      help: 'c',
      labelNames: ['outcome'],
      registers: [registry],
    });
    const gauge = new Gauge({ name: 'g', help: 'g', registers: [registry] });
    const histogram = new Histogram({ name: 'h', help: 'h', buckets: [0.1, 1], registers: [registry] });
    counter.inc({ outcome: 'stored' }, 3);
    counter.inc({ outcome: 'refused' });
    gauge.set(7);
    for (const value of [0.05, 0.5, 0.7, 5]) histogram.observe(value);
    const producer = registryProducer(registry, resourceFromAttributes({ 'service.name': 't' }));
    const { resourceMetrics, errors } = await producer.collect();
    expect(errors).toEqual([]);
    const metrics = resourceMetrics.scopeMetrics[0]!.metrics;
    const byName = Object.fromEntries(metrics.map((metric) => [metric.descriptor.name, metric]));
    expect(byName.c_total).toMatchObject({ dataPointType: DataPointType.SUM, isMonotonic: true });
    expect(byName.c_total!.dataPoints.map((point) => [point.attributes, point.value])).toEqual([
      [{ outcome: 'stored' }, 3],
      [{ outcome: 'refused' }, 1],
    ]);
    expect(byName.g!.dataPoints[0]!.value).toBe(7);
    expect(byName.h!.dataPointType).toBe(DataPointType.HISTOGRAM);
    // Prometheus's cumulative buckets (≤ 0.1: 1, ≤ 1: 3, +Inf: 4) become OTLP's per-bucket counts.
    expect(byName.h!.dataPoints[0]!.value).toEqual({
      buckets: { boundaries: [0.1, 1], counts: [1, 2, 1] },
      sum: 6.25,
      count: 4,
    });
    gauge.set(9);
    const again = await producer.collect();
    const g = again.resourceMetrics.scopeMetrics[0]!.metrics.find((metric) => metric.descriptor.name === 'g');
    expect(g!.dataPoints[0]!.value).toBe(9);
  });
});

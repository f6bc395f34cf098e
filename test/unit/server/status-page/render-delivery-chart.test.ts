/**
 * The chart: one bar per hour, segments stacked in outcome order with heights proportional to counts,
 * every bar named by a title that says the hour and the counts.
 */
import { describe, expect, it } from 'vitest';
import type { DeliveryStats } from '../../../../src/receiver/load-delivery-stats.js';
import { CHART_OUTCOMES } from '../../../../src/receiver/load-delivery-stats.js';
import {
  chooseScale,
  outcomeClass,
  renderDeliveryChart,
} from '../../../../src/server/status-page/render-delivery-chart.js';

function stats(countsByHour: Record<string, number>[], extraOutcomes: string[] = []): DeliveryStats {
  const start = Date.UTC(2026, 10, 22, 0);
  const hours = countsByHour.map((counts, i) => ({
    hour: new Date(start + i * 3_600_000).toISOString(),
    counts,
    total: Object.values(counts).reduce((a, b) => a + b, 0),
  }));
  const totals: Record<string, number> = {};
  for (const h of hours) for (const [o, n] of Object.entries(h.counts)) totals[o] = (totals[o] ?? 0) + n;
  return { hours, outcomes: [...CHART_OUTCOMES, ...extraOutcomes], totals };
}

function segments(svg: string): { outcome: string; y: number; height: number }[] {
  return [
    ...svg.matchAll(
      /<rect class="segment [^"]+" data-outcome="([^"]+)" x="[^"]+" y="([^"]+)" width="[^"]+" height="([^"]+)">/g,
    ),
  ].map((m) => ({ outcome: m[1] ?? '', y: Number(m[2]), height: Number(m[3]) }));
}

describe('chooseScale', () => {
  it.each([
    [0, 1, [0, 1]],
    [1, 1, [0, 1]],
    [7, 8, [0, 2, 4, 6, 8]],
    [10, 10, [0, 5, 10]],
    [52, 60, [0, 20, 40, 60]],
    [100, 100, [0, 50, 100]],
    [12_345, 15_000, [0, 5000, 10_000, 15_000]],
  ])('max %d → top %d', (max, top, ticks) => {
    expect(chooseScale(max)).toEqual({ top, ticks });
  });

  it('always covers the max with at most five steps of a whole number', () => {
    for (let max = 1; max < 5000; max += 7) {
      const { top, ticks } = chooseScale(max);
      expect(top).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(6);
      expect(ticks.every(Number.isInteger)).toBe(true);
    }
  });
});

describe('renderDeliveryChart', () => {
  it('draws one named bar per hour, empty hours included', () => {
    const out = renderDeliveryChart(
      stats(Array.from({ length: 24 }, (_, i): Record<string, number> => (i === 3 ? { stored: 5 } : {}))),
    ).toString();
    expect(out.match(/<g class="bar" role="img"/g)).toHaveLength(24);
    expect(out).toContain('<title>2026-11-22 03:00 UTC: 5 deliveries (stored 5)</title>');
    expect(out).toContain('<title>2026-11-22 04:00 UTC: no deliveries</title>');
  });

  it('stacks segments bottom-up in outcome order, heights proportional to counts', () => {
    const out = renderDeliveryChart(stats([{ refused: 10, stored: 30 }, { stored: 40 }])).toString();
    const [stored, refused, fullStored] = segments(out);
    expect(stored?.outcome).toBe('stored');
    expect(refused?.outcome).toBe('refused');
    // 40 is the top of the scale: the 40-delivery bar fills the plot; 30 + 10 fill it too, split 3:1.
    expect(fullStored?.height).toBeCloseTo((stored?.height ?? 0) + (refused?.height ?? 0), 1);
    expect((stored?.height ?? 0) / (refused?.height ?? 1)).toBeCloseTo(3, 1);
    expect(refused?.y ?? 0).toBeLessThan(stored?.y ?? 0);
    expect((refused?.y ?? 0) + (refused?.height ?? 0)).toBeCloseTo(stored?.y ?? 0, 1);
  });

  it('gives an outcome this version does not know the shared "other" colour, escaped', () => {
    const out = renderDeliveryChart(stats([{ '<new>': 2 }], ['<new>'])).toString();
    expect(out).toContain('data-outcome="&lt;new&gt;"');
    expect(out).toContain('class="segment o-other"');
    expect(out).not.toContain('<new>');
    expect(outcomeClass('retry_later')).toBe('o-retry-later');
  });

  it('says so when there were no deliveries, and labels the legend with totals', () => {
    const empty = renderDeliveryChart(stats(Array.from({ length: 24 }, () => ({})))).toString();
    expect(empty).toContain('No deliveries in the last 24 hours.');
    const some = renderDeliveryChart(stats([{ stored: 1234 }])).toString();
    expect(some).toMatch(/stored <strong>1,234<\/strong>/);
  });
});

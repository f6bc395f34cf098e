/**
 * The deliveries chart: one stacked bar per hour, drawn server-side as inline SVG (no script, no library).
 * Each bar is an image named by its <title> (hour, total, count per outcome), so a screen reader and a
 * mouse hover read the same thing; a legend with totals and a plain table carry the same data.
 */

import {
  CHART_OUTCOMES,
  type DeliveryStats,
  type HourlyDeliveries,
} from '../../receiver/load-delivery-stats.js';
import { formatCount, formatHour, formatOutcome } from './format-values.js';
import { html, type SafeHtml } from './safe-html.js';

const WIDTH = 760;
const HEIGHT = 260;
const MARGIN = { left: 52, right: 8, top: 14, bottom: 34 } as const;
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;
/** Share of each hour's slot the bar fills. */
const BAR_SHARE = 0.72;
/** An x-axis label every this many hours. */
const LABEL_EVERY_HOURS = 3;

const KNOWN = new Set<string>(CHART_OUTCOMES);

/** The CSS class of an outcome's colour; outcomes this version does not know share one colour. */
export function outcomeClass(outcome: string): string {
  return KNOWN.has(outcome) ? `o-${outcome.replace(/_/g, '-')}` : 'o-other';
}

/** The top of the y axis and its ticks: steps of 1, 2 or 5 times a power of ten, at most four steps. */
export function chooseScale(max: number): { top: number; ticks: number[] } {
  if (!(max > 0) || !Number.isFinite(max)) return { top: 1, ticks: [0, 1] };
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? magnitude * 10);
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= top; t += step) ticks.push(t);
  return { top, ticks };
}

function round(n: number): string {
  return String(Math.round(n * 100) / 100);
}

function describeHour(hour: HourlyDeliveries, outcomes: readonly string[]): string {
  if (hour.total === 0) return `${formatHour(hour.hour)}: no deliveries`;
  const parts = outcomes
    .filter((o) => (hour.counts[o] ?? 0) > 0)
    .map((o) => `${formatOutcome(o)} ${formatCount(hour.counts[o] ?? 0)}`);
  return `${formatHour(hour.hour)}: ${formatCount(hour.total)} deliveries (${parts.join(', ')})`;
}

function renderBar(
  hour: HourlyDeliveries,
  index: number,
  slot: number,
  top: number,
  outcomes: readonly string[],
): SafeHtml {
  const barWidth = slot * BAR_SHARE;
  const x = MARGIN.left + index * slot + (slot - barWidth) / 2;
  let y = MARGIN.top + PLOT_HEIGHT;
  const segments: SafeHtml[] = [];
  for (const outcome of outcomes) {
    const count = hour.counts[outcome] ?? 0;
    if (count <= 0) continue;
    const height = (count / top) * PLOT_HEIGHT;
    y -= height;
    segments.push(
      html`<rect class="segment ${outcomeClass(outcome)}" data-outcome="${outcome}" x="${round(x)}" y="${round(y)}" width="${round(barWidth)}" height="${round(height)}"><title>${formatOutcome(outcome)}: ${formatCount(count)}</title></rect>`,
    );
  }
  const label = describeHour(hour, outcomes);
  const hourText = hour.hour.slice(11, 13);
  const showLabel = index % LABEL_EVERY_HOURS === 0;
  return html`<g class="bar" role="img" data-hour="${hour.hour}" data-total="${hour.total}"><title>${label}</title><rect class="hover-target" x="${round(MARGIN.left + index * slot)}" y="${MARGIN.top}" width="${round(slot)}" height="${PLOT_HEIGHT}"></rect>${segments}${
    showLabel
      ? html`<text class="axis-label" x="${round(x + barWidth / 2)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle" aria-hidden="true">${hourText}:00</text>`
      : ''
  }</g>`;
}

/** The chart as inline SVG, its legend and its data table. */
export function renderDeliveryChart(stats: DeliveryStats): SafeHtml {
  const max = stats.hours.reduce((m, h) => Math.max(m, h.total), 0);
  const { top, ticks } = chooseScale(max);
  const slot = PLOT_WIDTH / Math.max(1, stats.hours.length);
  const total = stats.hours.reduce((sum, h) => sum + h.total, 0);
  const first = stats.hours[0];
  const last = stats.hours[stats.hours.length - 1];
  const summary =
    first && last
      ? `Deliveries per hour from ${formatHour(first.hour)} to ${formatHour(last.hour)}: ${formatCount(total)} in all, at most ${formatCount(max)} in one hour.`
      : 'No hours to show.';
  const grid = ticks.map((t) => {
    const y = MARGIN.top + PLOT_HEIGHT - (t / top) * PLOT_HEIGHT;
    return html`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${round(y)}" y2="${round(y)}"></line><text class="axis-label" x="${MARGIN.left - 6}" y="${round(y + 4)}" text-anchor="end">${formatCount(t)}</text>`;
  });
  const bars = stats.hours.map((hour, i) => renderBar(hour, i, slot, top, stats.outcomes));
  const legend = stats.outcomes
    .filter((o) => KNOWN.has(o) || (stats.totals[o] ?? 0) > 0)
    .map(
      (o) =>
        html`<li><span class="swatch ${outcomeClass(o)}" aria-hidden="true"></span>${formatOutcome(o)} <strong>${formatCount(stats.totals[o] ?? 0)}</strong></li>`,
    );
  return html`<figure class="chart">
<svg id="delivery-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="group" aria-labelledby="delivery-chart-title delivery-chart-desc" xmlns="http://www.w3.org/2000/svg">
<title id="delivery-chart-title">Deliveries per hour by outcome, last ${stats.hours.length} hours</title>
<desc id="delivery-chart-desc">${summary}</desc>
${grid}${bars}
</svg>
<figcaption><span class="visually-hidden">Legend, with totals over the window:</span><ul class="legend">${legend}</ul>${total === 0 ? html`<p class="empty">No deliveries in the last ${stats.hours.length} hours.</p>` : ''}</figcaption>
</figure>
${renderDeliveryTable(stats)}`;
}

function renderDeliveryTable(stats: DeliveryStats): SafeHtml {
  const rows = stats.hours
    .filter((h) => h.total > 0)
    .map(
      (h) =>
        html`<tr><th scope="row">${formatHour(h.hour)}</th>${stats.outcomes.map((o) => html`<td class="num">${formatCount(h.counts[o] ?? 0)}</td>`)}<td class="num">${formatCount(h.total)}</td></tr>`,
    );
  return html`<details><summary>The same data as a table</summary>
<table><caption>Deliveries per hour (hours with none left out)</caption>
<thead><tr><th scope="col">Hour</th>${stats.outcomes.map((o) => html`<th scope="col" class="num">${formatOutcome(o)}</th>`)}<th scope="col" class="num">total</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="${stats.outcomes.length + 2}">No deliveries.</td></tr>`}</tbody>
</table></details>`;
}

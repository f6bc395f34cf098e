/**
 * The status page's watches section: each watch's latest cycle (its progress, changes, spending, why it
 * stopped) and the latest changes found, with their carried fields. Values are escaped by `html`.
 */
import { formatCount, formatInstant } from './format-values.js';
import type { WatchesSummary } from './load-status-snapshot.js';
import { html, type SafeHtml } from './safe-html.js';

function describeAfter(after: string): string {
  try {
    const value = JSON.parse(after) as Record<string, unknown>;
    const replaces = value.replaces as { name?: unknown } | undefined;
    const parts = [value.status, value.company_name ?? value.company_domain, value.title]
      .concat(
        value.first_name === undefined ? [] : [`${value.first_name ?? ''} ${value.last_name ?? ''}`.trim()],
      )
      .concat(typeof replaces?.name === 'string' ? [`replaces ${replaces.name}`] : [])
      .filter((part) => typeof part === 'string' && part !== '');
    return parts.join(' · ');
  } catch {
    return '';
  }
}

/** What a change started: `task 123 in crm: done`, `successor search: done (2 found)`. */
function describePlays(summary: WatchesSummary, changeId: number | string): string {
  return (summary.plays?.get(String(changeId)) ?? [])
    .map((p) =>
      p.play === 'task'
        ? `task${p.task_id === null ? '' : ` ${p.task_id}`} in ${p.destination ?? ''}: ${p.state}`
        : `successor search: ${p.state}${p.detail === null ? '' : ` (${p.detail})`}`,
    )
    .join('; ');
}

/** The watches tables. */
export function renderWatches(summary: WatchesSummary): SafeHtml {
  const cycles = summary.cycles.map(
    (c) =>
      html`<tr><th scope="row"><code>${c.watch}</code></th><td class="num">${formatCount(c.cycle)}</td><td>${c.finished_at === null ? 'running' : c.stopped === null ? 'done' : html`<strong>stopped: ${c.stopped}</strong>`}</td><td class="num">${formatCount(c.checked)} / ${formatCount(c.rows)}</td><td class="num">${formatCount(c.baseline)}</td><td class="num">${formatCount(c.changes)}</td><td class="num">$${(Number(c.usd_micros) / 1e6).toFixed(2)}</td><td>${formatInstant(c.started_at)}</td><td>${formatInstant(c.ends_at)}</td></tr>`,
  );
  const changes = summary.changes.map(
    (c) =>
      html`<tr><td>${formatInstant(c.detected_at)}</td><td><code>${c.watch}</code></td><td>${c.change}</td><td><code>${c.custom_fields}</code></td><td>${describeAfter(c.after)}</td><td>${describePlays(summary, c.id)}</td></tr>`,
  );
  return html`<div class="table-wrap"><table><caption>Watches: each one's latest cycle</caption>
<thead><tr>${['Watch', 'Cycle', 'State', 'Checked', 'Baseline', 'Changes', 'Spent', 'Started', 'Next cycle from'].map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${cycles.length > 0 ? cycles : html`<tr><td colspan="9" class="empty">No watch has run (docs/watches.md).</td></tr>`}</tbody>
</table></div>
<div class="table-wrap"><table><caption>Latest changes</caption>
<thead><tr>${['Found', 'Watch', 'Change', 'Carried', 'Now', 'Plays'].map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${changes.length > 0 ? changes : html`<tr><td colspan="6" class="empty">No change found yet.</td></tr>`}</tbody>
</table></div>`;
}

/**
 * The status page's destinations section: per destination, its type, whether it is paused, its counts
 * and last error. Shows only what `destinations list` shows: never a URL or a secret.
 */
import type { DestinationState } from '../../destinations/destination-admin.js';
import { describeCounters } from '../../destinations/destination-counters.js';
import { formatCount, formatDuration, formatInstant, redactSecrets } from './format-values.js';
import { html, type SafeHtml } from './safe-html.js';

/** The destinations table. */
export function renderDestinations(destinations: readonly DestinationState[]): SafeHtml {
  const rows = destinations.map(
    (d) =>
      html`<tr><th scope="row"><code>${d.name}</code>${d.active ? '' : ' (removed)'}</th><td>${d.type}</td><td>${d.paused ? html`<strong>paused</strong>` : 'active'}</td><td class="num">${formatCount(d.pending)}</td><td class="num">${formatCount(d.delivered)}</td><td class="num">${formatCount(d.failed)}</td><td>${d.oldest_pending_age_seconds === null ? '—' : formatDuration(d.oldest_pending_age_seconds * 1000)}</td><td>${d.last_error === null ? '—' : html`${redactSecrets(d.last_error)} <span class="time">${formatInstant(d.last_error_at)}</span>`}</td></tr>${describeCounters(d.counters) === '' ? '' : html`<tr><td></td><td colspan="7">${describeCounters(d.counters)}</td></tr>`}`,
  );
  return html`<div class="table-wrap"><table><caption>Destinations: where stored jobs are handed on</caption>
<thead><tr>${['Name', 'Type', 'State', 'Pending', 'Delivered', 'Failed', 'Oldest pending', 'Last error'].map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="8" class="empty">No destination is configured (docs/destinations.md).</td></tr>`}</tbody>
</table></div>`;
}

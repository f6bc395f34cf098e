/**
 * The tables of the status page: quarantine, ledger, reconcile runs, export cursors. Every value passes
 * through the `html` tag, so quarantined bodies, reasons and error texts are shown, never interpreted.
 */

import type { ReconcileRunRecord } from '../../reconcile/reconcile-history.js';
import type { ExpectedJobRow } from '../../storage/ledger/list-expected-jobs.js';
import { EXPECTED_JOB_STATES } from '../../storage/ledger/list-expected-jobs.js';
import type { QuarantineSummary } from '../../storage/quarantine/load-quarantine-summary.js';
import { formatCount, formatDuration, formatInstant, redactSecrets } from './format-values.js';
import type { ExportCursorEntry, LedgerSummary, Section } from './load-status-snapshot.js';
import { type HtmlValue, html, type SafeHtml } from './safe-html.js';

/** What an unreadable section shows instead of its data. */
export function renderUnavailable(): SafeHtml {
  return html`<p class="unavailable" role="status">This section could not be read just now; the receiver's log says why.</p>`;
}

/** Renders a section's data, or {@link renderUnavailable}. */
export function renderSection<T>(section: Section<T>, render: (value: T) => SafeHtml): SafeHtml {
  return section.ok ? render(section.value) : renderUnavailable();
}

function table(
  caption: string,
  headers: readonly string[],
  rows: readonly SafeHtml[],
  empty: string,
): SafeHtml {
  return html`<div class="table-wrap"><table><caption>${caption}</caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="${headers.length}" class="empty">${empty}</td></tr>`}</tbody>
</table></div>`;
}

function code(text: string | null | undefined): HtmlValue {
  return text === null || text === undefined || text === '' ? '—' : html`<code>${text}</code>`;
}

/** Where the quarantine section's "show bodies" / "hide bodies" link points. */
export interface QuarantineLinks {
  /** The page with the start of each body shown. */
  readonly withBodies: string;
  /** The page without bodies. */
  readonly withoutBodies: string;
}

function bodyCell(q: QuarantineSummary['latest'][number]): SafeHtml {
  const meta = html`<span class="body-meta">${formatCount(q.bodyBytes)} bytes, ${q.contentType ?? 'no content type'}</span>`;
  if (q.bodyPreview === undefined) return meta;
  const more = q.bodyBytes > new TextEncoder().encode(q.bodyPreview).length;
  return html`${meta}<code class="body-preview">${q.bodyPreview}</code>${more ? html`<span class="more">…</span>` : ''}`;
}

/**
 * Reason counts and the latest quarantined callbacks: ids and reasons, and the start of each body only
 * when the snapshot was read with bodies (the operator asked: bodies may hold personal data).
 */
export function renderQuarantine(summary: QuarantineSummary, links?: QuarantineLinks): SafeHtml {
  const reasons = summary.reasons.map(
    (r) =>
      html`<tr><th scope="row"><code>${r.reason}</code></th><td class="num">${formatCount(r.count)}</td></tr>`,
  );
  const { bodies } = summary;
  const latest = summary.latest.map(
    (q) => html`<tr>
<td class="time">${formatInstant(q.receivedAt)}</td><td><code>${q.id}</code></td><td><code>${q.reason}</code></td><td>${q.detail === null ? '—' : redactSecrets(q.detail)}</td>
<td>${code(q.claimedJobId)}</td><td>${q.kind ?? '—'}</td>
<td>${bodyCell(q)}</td>
</tr>`,
  );
  const toggle =
    links === undefined
      ? ''
      : bodies
        ? html`<p class="note">Showing the start of each body, which may hold personal data. <a href="${links.withoutBodies}">Hide bodies</a></p>`
        : html`<p class="note">Bodies are hidden: they may hold personal data. <a href="${links.withBodies}">Show the start of each body</a></p>`;
  return html`<p class="lead">${formatCount(summary.total)} refused callback${summary.total === 1 ? '' : 's'} kept in quarantine.</p>
<h3 id="quarantine-reasons">Reasons</h3>
${table('Quarantined callbacks by reason', ['Reason', 'Count'], reasons, 'The quarantine is empty.')}
<h3 id="quarantine-latest">Latest ${formatCount(summary.latest.length)}</h3>
${toggle}
${table(
  'Latest quarantined callbacks, newest first',
  ['Received', 'Id', 'Reason', 'Detail', 'Claimed job_id', 'Kind', bodies ? 'Body (start)' : 'Body'],
  latest,
  'Nothing quarantined.',
)}`;
}

function ledgerRows(entries: readonly ExpectedJobRow[]): SafeHtml[] {
  return entries.map(
    (
      e,
    ) => html`<tr><td>${code(e.job_id)}</td><td>${e.kind}</td><td>${e.origin}</td><td class="num">${formatCount(Number(e.attempts))}</td>
<td class="time">${formatInstant(e.next_attempt_at)}</td><td>${e.last_error === null ? '—' : redactSecrets(e.last_error)}</td><td class="time">${formatInstant(e.created_at)}</td></tr>`,
  );
}

/** Counts by state, and the pending and not-found entries. */
export function renderLedger(ledger: LedgerSummary): SafeHtml {
  const counts = EXPECTED_JOB_STATES.map(
    (state) =>
      html`<tr><th scope="row">${state.replace('_', ' ')}</th><td class="num">${formatCount(ledger.counts[state])}</td></tr>`,
  );
  const headers = ['job_id', 'Kind', 'Origin', 'Attempts', 'Next attempt', 'Last error', 'Expected since'];
  const shown = (n: number, of: number) =>
    n < of ? ` (oldest ${formatCount(n)} of ${formatCount(of)})` : '';
  return html`${table('Expected jobs by state', ['State', 'Count'], counts, 'The ledger is empty.')}
<h3 id="ledger-pending">Pending${shown(ledger.pending.length, ledger.counts.pending)}</h3>
${table('Jobs still awaited', headers, ledgerRows(ledger.pending), 'Nothing pending.')}
<h3 id="ledger-not-found">Not found${shown(ledger.notFound.length, ledger.counts.not_found)}</h3>
${table('Jobs the finders do not know', headers, ledgerRows(ledger.notFound), 'None.')}`;
}

function runNote(run: ReconcileRunRecord): string {
  const report = run.report;
  if (report === undefined) return run.status === 'running' ? 'running' : '';
  if (report.stop)
    return redactSecrets(`stopped: ${report.stop.code} (HTTP ${report.stop.status}) ${report.stop.message}`);
  if (report.error) return redactSecrets(report.error);
  return '';
}

/** The latest reconcile runs with what they recovered. */
export function renderRuns(runs: readonly ReconcileRunRecord[]): SafeHtml {
  const rows = runs.map((run) => {
    const r = run.report;
    const n = (value: number | undefined) => (value === undefined ? '—' : formatCount(value));
    const recovered = r?.recovered ?? 0;
    return html`<tr${recovered > 0 ? html` class="warn"` : ''}><td class="time">${formatInstant(run.started_at)}</td><td>${run.status}</td>
<td class="num">${n(r?.checked)}</td><td class="num">${n(r?.fetched)}</td>
<td class="num">${recovered > 0 ? html`<strong>${formatCount(recovered)}</strong><span class="visually-hidden"> (callbacks were lost)</span>` : n(r?.recovered)}</td>
<td class="num">${n(r?.already_received)}</td><td class="num">${n(r?.still_pending)}</td><td class="num">${n(r?.not_found)}</td>
<td class="num">${n(r?.failed)}</td><td class="num">${n(r?.rate_limited)}</td><td class="num">${formatDuration(r?.duration_ms)}</td><td>${runNote(run)}</td></tr>`;
  });
  const lost = runs.some((run) => (run.report?.recovered ?? 0) > 0);
  return html`${lost ? html`<p class="alert" role="note">Recent runs recovered jobs whose callbacks never arrived: check that the service can reach POST /webhooks.</p>` : ''}
${table(
  'Latest reconcile runs, newest first',
  [
    'Started',
    'Status',
    'Checked',
    'Fetched',
    'Recovered',
    'Already received',
    'Still pending',
    'Not found',
    'Failed',
    '429 answers',
    'Duration',
    'Note',
  ],
  rows,
  'No reconcile run yet.',
)}`;
}

/** Where each `export --since-last` resumes. */
export function renderCursors(cursors: readonly ExportCursorEntry[]): SafeHtml {
  const rows = cursors.map(
    (c) =>
      html`<tr><th scope="row"><code>${c.template}</code></th><td class="time">${formatInstant(c.cursor)}</td><td class="num">${formatCount(c.rows)}</td><td class="time">${formatInstant(c.updatedAt)}</td></tr>`,
  );
  return table(
    'Export cursors by template',
    ['Template', 'Exported up to', 'Rows in last export', 'Updated'],
    rows,
    'No export has set a cursor yet.',
  );
}

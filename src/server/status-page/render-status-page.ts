/**
 * The status page (GET /ui): deliveries of the last 24 hours, quarantine, ledger, reconcile runs and export
 * cursors, server-rendered from one {@link StatusSnapshot}. Shows data only: no token, key or database URL.
 */
import { formatInstant } from './format-values.js';
import type { StatusSnapshot } from './load-status-snapshot.js';
import { renderDeliveryChart } from './render-delivery-chart.js';
import { renderDestinations } from './render-destinations.js';
import { AUTO_REFRESH_SECONDS, renderPageLayout } from './render-page-layout.js';
import {
  renderCursors,
  renderLedger,
  renderQuarantine,
  renderRuns,
  renderSection,
} from './render-status-sections.js';
import { renderWatches } from './render-watches.js';
import { html } from './safe-html.js';

/** Where the page's forms post to. */
export interface StatusPageLinks {
  /** Path of the page itself, e.g. /ui. */
  page: string;
  /** Path of the logout form's target. */
  logout: string;
}

/** Options of {@link renderStatusPage}. */
export interface RenderStatusPageOptions {
  /** CSP nonce of this response. */
  nonce: string;
  links: StatusPageLinks;
}

const SECTIONS = [
  ['deliveries', 'Deliveries'],
  ['quarantine', 'Quarantine'],
  ['ledger', 'Ledger'],
  ['reconcile', 'Reconcile runs'],
  ['exports', 'Export cursors'],
  ['watches', 'Watches'],
] as const;

/** The whole page as an HTML document. */
export function renderStatusPage(snapshot: StatusSnapshot, options: RenderStatusPageOptions): string {
  const { links } = options;
  const body = html`<header>
<div>
<h1>hooksync status</h1>
<nav aria-label="Sections"><ul>${SECTIONS.map(([id, name]) => html`<li><a href="#${id}">${name}</a></li>`)}</ul></nav>
</div>
<div class="controls">
<span>Read at <time datetime="${snapshot.generatedAt}">${formatInstant(snapshot.generatedAt)}</time></span>
<label><input type="checkbox" id="auto-refresh"> Refresh every ${AUTO_REFRESH_SECONDS} s</label>
<form method="post" action="${links.logout}"><button type="submit">Sign out</button></form>
</div>
</header>
<main>
<section id="deliveries" aria-labelledby="deliveries-heading">
<h2 id="deliveries-heading">Deliveries, last 24 hours</h2>
${renderSection(snapshot.deliveries, renderDeliveryChart)}
</section>
<section id="quarantine" aria-labelledby="quarantine-heading">
<h2 id="quarantine-heading">Quarantine</h2>
${renderSection(snapshot.quarantine, (summary) =>
  renderQuarantine(summary, {
    withBodies: `${links.page}?bodies=1#quarantine`,
    withoutBodies: `${links.page}#quarantine`,
  }),
)}
</section>
<section id="ledger" aria-labelledby="ledger-heading">
<h2 id="ledger-heading">Ledger of expected jobs</h2>
${renderSection(snapshot.ledger, renderLedger)}
</section>
<section id="reconcile" aria-labelledby="reconcile-heading">
<h2 id="reconcile-heading">Reconcile runs</h2>
${renderSection(snapshot.runs, renderRuns)}
</section>
<section id="exports" aria-labelledby="exports-heading">
<h2 id="exports-heading">Export cursors</h2>
${renderSection(snapshot.cursors, renderCursors)}
</section>
<section id="destinations" aria-labelledby="destinations-heading">
<h2 id="destinations-heading">Destinations</h2>
${renderSection(snapshot.destinations, renderDestinations)}
</section>
<section id="watches" aria-labelledby="watches-heading">
<h2 id="watches-heading">Watches</h2>
${renderSection(snapshot.watches, renderWatches)}
</section>
</main>
<footer><p>Times are UTC. <a href="${links.page}">Reload</a></p></footer>`;
  return renderPageLayout({ title: 'hooksync status', nonce: options.nonce, body, withScript: true });
}

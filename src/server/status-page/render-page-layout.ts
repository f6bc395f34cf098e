/**
 * The HTML document around every page of the status UI: one inline stylesheet and, when asked, one small
 * inline script, both carrying the response's CSP nonce (no other script or style can run).
 */
import { html, type SafeHtml, trustedHtml } from './safe-html.js';

/** Seconds between reloads when auto refresh is on. */
export const AUTO_REFRESH_SECONDS = 30;

const STYLES = trustedHtml(`
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg-alt: #f6f8fa; --warn: #fff4d6; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
header, main, footer { max-width: 1280px; margin: 0 auto; padding: 0 1.25rem; }
header { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: baseline; justify-content: space-between; padding-top: 1rem; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.5rem; margin: 0 0 0.5rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 0.5rem; padding-bottom: 0.25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 1.25rem 0 0.4rem; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; padding: 0; margin: 0.75rem 0 0; }
a { color: #0550ae; }
.controls { display: flex; gap: 1rem; align-items: center; color: var(--muted); font-size: 0.9rem; }
.controls form { margin: 0; }
button { font: inherit; padding: 0.3rem 0.8rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg-alt); cursor: pointer; }
button:focus-visible, input:focus-visible, summary:focus-visible, a:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: 0.25rem 0 0.75rem; font-size: 0.9rem; }
caption { text-align: left; color: var(--muted); font-size: 0.85rem; padding-bottom: 0.25rem; }
th, td { text-align: left; vertical-align: top; padding: 0.3rem 0.5rem; border-bottom: 1px solid var(--line); }
thead th { background: var(--bg-alt); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.time { white-space: nowrap; }
td.empty { color: var(--muted); font-style: italic; }
tr.warn { background: var(--warn); }
code { font: 0.85rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.body-preview { display: block; min-width: 12rem; max-width: 30rem; max-height: 6.5em; overflow: auto; white-space: pre-wrap; word-break: break-all; }
.more { color: var(--muted); }
.body-meta { display: block; color: var(--muted); font-size: 0.8rem; white-space: nowrap; }
.lead { font-size: 1rem; }
.note { color: var(--muted); }
.alert { background: var(--warn); border-left: 4px solid #bf8700; padding: 0.5rem 0.75rem; }
.unavailable { color: var(--bad); }
.error { color: var(--bad); font-weight: 600; }
.chart { margin: 0; }
.chart svg { width: 100%; max-width: 960px; height: auto; display: block; }
.chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .axis-label { fill: var(--muted); font-size: 11px; }
.chart .hover-target { fill: transparent; }
.chart .bar:hover .hover-target { fill: #eaeef2; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; padding: 0; margin: 0.5rem 0; }
.swatch { display: inline-block; width: 0.8rem; height: 0.8rem; margin-right: 0.35rem; vertical-align: -1px; border-radius: 2px; }
.o-stored { fill: #0072b2; background-color: #0072b2; }
.o-updated { fill: #56b4e9; background-color: #56b4e9; }
.o-duplicate { fill: #009e73; background-color: #009e73; }
.o-replay { fill: #cc79a7; background-color: #cc79a7; }
.o-fetched { fill: #7b61ff; background-color: #7b61ff; }
.o-refused { fill: #d55e00; background-color: #d55e00; }
.o-retry-later { fill: #e69f00; background-color: #e69f00; }
.o-overloaded { fill: #3b3b3b; background-color: #3b3b3b; }
.o-other { fill: #999999; background-color: #999999; }
.login { max-width: 26rem; margin: 4rem auto; }
.login label { display: block; font-weight: 600; margin-bottom: 0.3rem; }
.login input { width: 100%; font: inherit; padding: 0.4rem; border: 1px solid var(--line); border-radius: 6px; margin-bottom: 0.75rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
footer { color: var(--muted); font-size: 0.85rem; padding-top: 2rem; padding-bottom: 2rem; }
`);

// Auto refresh: off by default, the choice kept in localStorage so that it survives the reload itself.
const SCRIPT = trustedHtml(`
(function () {
  var box = document.getElementById('auto-refresh');
  if (!box) return;
  var key = 'hooksync-status-auto-refresh';
  var timer;
  try { box.checked = window.localStorage.getItem(key) === 'on'; } catch (e) {}
  function arm() {
    clearTimeout(timer);
    if (box.checked) timer = setTimeout(function () { window.location.reload(); }, ${AUTO_REFRESH_SECONDS * 1000});
  }
  box.addEventListener('change', function () {
    try { window.localStorage.setItem(key, box.checked ? 'on' : 'off'); } catch (e) {}
    arm();
  });
  arm();
})();
`);

/** Parts of a page. */
export interface PageLayoutOptions {
  title: string;
  /** CSP nonce of this response (base64). */
  nonce: string;
  body: SafeHtml;
  /** Adds the auto-refresh script. */
  withScript?: boolean;
}

/** The whole document. */
export function renderPageLayout(options: PageLayoutOptions): string {
  const { nonce } = options;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title}</title>
<style nonce="${nonce}">${STYLES}</style>
</head>
<body>
${options.body}
${options.withScript ? html`<script nonce="${nonce}">${SCRIPT}</script>` : ''}
</body>
</html>
`.toString();
}

/** The Content-Security-Policy of a page: only this response's own style and script, nothing loaded. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "img-src 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

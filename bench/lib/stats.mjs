/**
 * Summaries of repeated measurements: median with min–max, percentiles, and the number formats the
 * result tables use.
 */

/** Median of a non-empty list (mean of the two middle values for an even count). */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median, min and max of a list. */
export function summarize(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

/** The p-th percentile (0–100) of a list, nearest-rank on the sorted values. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** 12,345 */
export function formatInteger(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a';
}

/** Milliseconds with a precision that suits their size: 0.42, 4.2, 42. */
export function formatMs(n) {
  if (!Number.isFinite(n)) return 'n/a';
  if (n < 1) return n.toFixed(2);
  if (n < 10) return n.toFixed(1);
  return n.toFixed(0);
}

/** "median (min–max)" of a summary, with a formatter for the numbers. */
export function formatSummary(summary, format = formatInteger) {
  return `${format(summary.median)} (${format(summary.min)}–${format(summary.max)})`;
}

/** A ratio such as 2.31×. */
export function formatRatio(n) {
  return Number.isFinite(n) ? `${n.toFixed(2)}×` : 'n/a';
}

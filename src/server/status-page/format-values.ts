/**
 * How the status page writes numbers and instants: plain, in UTC, the same on every server whatever its
 * locale, so that two operators reading two replicas see the same text.
 */

const COUNT_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** An integer with thousands separators (12,345). */
export function formatCount(n: number): string {
  return COUNT_FORMAT.format(n);
}

/** An ISO instant as `YYYY-MM-DD HH:MM:SS UTC`; text that is not an instant is returned unchanged. */
export function formatInstant(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** An hour bucket as `YYYY-MM-DD HH:00 UTC`. */
export function formatHour(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 13).replace('T', ' ')}:00 UTC`;
}

/** A duration in ms as `850 ms`, `12.3 s` or `4 min 05 s`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** Outcome names as a person reads them (retry_later → retry later). */
export function formatOutcome(outcome: string): string {
  return outcome.replace(/_/g, ' ');
}

/** Free text (error messages) with any URL credentials and bearer tokens masked, in case one slipped in. */
export function redactSecrets(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, '$1***@')
    .replace(/\b(Bearer\s+)[^\s,;"']+/gi, '$1***');
}

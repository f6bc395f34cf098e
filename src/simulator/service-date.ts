/**
 * Dates as the service writes them (Resources, job envelope): ISO 8601 with microseconds and an offset,
 * e.g. 2026-11-22T10:11:12.123456+00:00. The simulator always writes UTC.
 */

/** The default clock: ms since the epoch with sub-millisecond digits, so microseconds are real. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Formats `timeMs` (ms since the epoch, fractions kept down to the microsecond) in the service's form. */
export function formatServiceDate(timeMs: number): string {
  if (!Number.isFinite(timeMs)) throw new TypeError(`timeMs must be a finite number, got ${String(timeMs)}`);
  const micros = Math.floor(timeMs * 1000);
  const wholeMs = Math.floor(micros / 1000);
  const iso = new Date(wholeMs).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const fraction = String(micros - Math.floor(wholeMs / 1000) * 1_000_000).padStart(6, '0');
  return `${iso.slice(0, 19)}.${fraction}+00:00`;
}

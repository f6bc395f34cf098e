/**
 * Durations as users type them on the command line: `15m`, `2h`, `0s`, `7d`, `1h30m`, `250ms`.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/**
 * The milliseconds a duration names: one or more `<number><unit>` parts (units ms, s, m, h, d).
 * Throws TypeError naming the value for anything else (a bare number has no unit, so it is refused).
 */
export function parseDuration(text: string): number {
  if (typeof text !== 'string') throw new TypeError(`a duration must be a string, got ${typeof text}`);
  const value = text.trim();
  let totalMs = 0;
  let consumed = 0;
  PART.lastIndex = 0;
  for (let match = PART.exec(value); match !== null; match = PART.exec(value)) {
    totalMs += Number(match[1]) * UNIT_MS[match[2]!]!;
    consumed = PART.lastIndex;
  }
  if (value === '' || consumed !== value.length || !Number.isFinite(totalMs)) {
    throw new TypeError(`"${text}" is not a duration (examples: 0s, 90s, 15m, 2h, 7d, 1h30m)`);
  }
  return Math.round(totalMs);
}

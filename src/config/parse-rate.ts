/**
 * Rates as configuration files write them: `<requests>/<duration>`, e.g. `90/10s` (at most 90 in any
 * 10 s) or `5/1m`; the duration as parse-duration.ts reads it.
 */
import type { WindowRate } from '../contract/rate-window.js';
import { parseDuration } from './parse-duration.js';

/** What a rate looks like, for messages. */
export const RATE_SYNTAX = '<requests>/<duration>, e.g. 90/10s';

/** The rate `text` names; throws TypeError naming the value for anything else. */
export function parseRate(text: string): WindowRate {
  if (typeof text !== 'string') throw new TypeError(`a rate must be a string, got ${typeof text}`);
  const match = /^(\d+)\/(.+)$/.exec(text.trim());
  const requests = match === null ? Number.NaN : Number(match[1]);
  let perMs = Number.NaN;
  try {
    if (match !== null) perMs = parseDuration(match[2]!);
  } catch {
    // Reported below, as a rate.
  }
  if (!Number.isSafeInteger(requests) || requests < 1 || !(perMs > 0)) {
    throw new TypeError(`"${text}" is not a rate (${RATE_SYNTAX})`);
  }
  return { requests, perMs };
}

/**
 * How long the service asks us to wait: the Retry-After header (a number of seconds per the Limits part;
 * an HTTP-date is accepted too, RFC 9110 §10.2.3), else the seconds named in the 429 message.
 */
import { parseRateLimitMessage } from '../contract/rate-limit.js';

/**
 * The longest wait honoured from anyone, seconds (a day): `Retry-After: 99999999999999` is a day, not a
 * date past what `Date` can hold (issue 43); the caller's own schedule takes it from there.
 */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * Seconds to wait, at most {@link MAX_RETRY_AFTER_SECONDS}, or undefined when neither the header nor the
 * message names a usable value.
 */
export function parseRetryAfterSeconds(
  header: string | null | undefined,
  message: string | undefined,
  nowMs: number,
): number | undefined {
  const seconds = namedSeconds(header, message, nowMs);
  return seconds === undefined ? undefined : Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

function namedSeconds(
  header: string | null | undefined,
  message: string | undefined,
  nowMs: number,
): number | undefined {
  const value = header?.trim();
  if (value) {
    if (/^\d+(?:\.\d+)?$/.test(value)) return Number(value);
    const dateMs = Date.parse(value);
    if (Number.isFinite(dateMs)) return Math.max(0, (dateMs - nowMs) / 1000);
  }
  if (message !== undefined) {
    const seconds = parseRateLimitMessage(message);
    if (seconds !== undefined && Number.isFinite(seconds) && seconds >= 0) return seconds;
  }
  return undefined;
}

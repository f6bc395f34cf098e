/**
 * How long the service asks us to wait: the Retry-After header (a number of seconds per the Limits part;
 * an HTTP-date is accepted too, RFC 9110 §10.2.3), else the seconds named in the 429 message.
 */
import { parseRateLimitMessage } from '../contract/rate-limit.js';

/** Seconds to wait, or undefined when neither the header nor the message names a usable value. */
export function parseRetryAfterSeconds(
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
    if (seconds !== undefined && Number.isFinite(seconds)) return seconds;
  }
  return undefined;
}

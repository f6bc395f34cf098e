/** Issue 43 part 5: a Retry-After is honoured up to a day, whatever it says. */
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_SECONDS, parseRetryAfterSeconds } from '../../../src/client/retry-after.js';
import { formatRateLimitMessage } from '../../../src/contract/rate-limit.js';

const NOW = Date.parse('2026-11-28T00:00:00.000Z');

describe('parseRetryAfterSeconds bound', () => {
  it('clamps an absurd number of seconds to a day (no date past what Date holds)', () => {
    const seconds = parseRetryAfterSeconds('99999999999999', undefined, NOW);
    expect(seconds).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(() => new Date(NOW + seconds! * 1000).toISOString()).not.toThrow();
  });

  it('clamps a far HTTP date and a far message to a day; keeps what is short', () => {
    expect(parseRetryAfterSeconds('Fri, 31 Dec 9999 23:59:59 GMT', undefined, NOW)).toBe(86_400);
    expect(parseRetryAfterSeconds(undefined, formatRateLimitMessage(99_999_999_999), NOW)).toBe(86_400);
    expect(parseRetryAfterSeconds('7', undefined, NOW)).toBe(7);
  });
});

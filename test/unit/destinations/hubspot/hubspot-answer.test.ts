/** What HubSpot's answers mean: the 429 policies, 423, 401/403 naming token and scopes, 400 never retried. */
import { describe, expect, it } from 'vitest';
import { classifyTrouble, dailyRemaining } from '../../../../src/destinations/hubspot/hubspot-answer.js';

const body = (value: unknown) => JSON.stringify(value);
const classify = (status: number, text: string, retryAfterMs?: number) =>
  classifyTrouble({ status, text, retryAfterMs, tokenEnv: 'HUBSPOT_TOKEN' });

describe('classifyTrouble', () => {
  it('pauses at least 10 s on TEN_SECONDLY_ROLLING, longer when Retry-After says so', () => {
    const text = body({
      status: 'error',
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      policyName: 'TEN_SECONDLY_ROLLING',
    });
    expect(classify(429, text)).toMatchObject({
      kind: 'wait',
      policy: 'TEN_SECONDLY_ROLLING',
      waitMs: 10_000,
    });
    expect(classify(429, text, 3_000)).toMatchObject({ waitMs: 10_000 });
    expect(classify(429, text, 25_000)).toMatchObject({ waitMs: 25_000 });
  });

  it('pauses for an hour (a probe) on DAILY: the reset is midnight in a time zone the API does not give', () => {
    const text = body({ message: 'You have reached your daily limit.', policyName: 'DAILY' });
    expect(classify(429, text)).toMatchObject({ kind: 'wait', policy: 'DAILY', waitMs: 3_600_000 });
  });

  it('waits ≥ 2 s on 423 and retries 5xx', () => {
    expect(classify(423, '')).toMatchObject({ kind: 'retry', retryAfterMs: 2_000 });
    expect(classify(502, 'Bad gateway')).toMatchObject({ kind: 'retry', error: 'HTTP 502: Bad gateway' });
  });

  it('pauses on 401 naming the token variable, never its value', () => {
    const trouble = classify(
      401,
      body({ message: 'Authentication credentials not found.', category: 'INVALID_AUTHENTICATION' }),
    );
    expect(trouble.kind).toBe('pause');
    expect(trouble.error).toContain('HUBSPOT_TOKEN');
  });

  it('pauses on 403 naming the missing scopes', () => {
    const trouble = classify(
      403,
      body({
        category: 'MISSING_SCOPES',
        errors: [
          {
            message: 'One or more of the following scopes are required.',
            context: { requiredGranularScopes: ['crm.objects.companies.write'] },
          },
        ],
      }),
    );
    expect(trouble.kind).toBe('pause');
    expect(trouble.error).toContain('crm.objects.companies.write');
  });

  it('fails 400 and 409 with HubSpot message', () => {
    expect(classify(400, body({ message: 'Property values were not valid' }))).toEqual({
      kind: 'fail',
      error: 'HTTP 400: Property values were not valid',
    });
    expect(classify(409, body({ message: 'Contact already exists. Existing ID: 1' })).kind).toBe('fail');
  });
});

describe('dailyRemaining', () => {
  it('reads X-HubSpot-RateLimit-Daily-Remaining', () => {
    expect(dailyRemaining(new Headers({ 'X-HubSpot-RateLimit-Daily-Remaining': '249990' }))).toBe(249_990);
    expect(dailyRemaining(new Headers())).toBeUndefined();
  });
});

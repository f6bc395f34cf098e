import { describe, expect, it } from 'vitest';
import { DEFAULT_CRM_RETRY_POLICY, policyFor } from '../../../../src/destinations/crm/crm-retry.js';
import { DailyBudget } from '../../../../src/destinations/pipedrive/daily-budget.js';
import {
  BURST_WINDOW_MS,
  classifyTrouble,
  DAILY_PROBE_MS,
  dailyBudget,
  PIPEDRIVE_RETRY_POLICY,
} from '../../../../src/destinations/pipedrive/pipedrive-answer.js';
import { CrmError } from '../../../../src/errors.js';

const classify = (
  status: number,
  text: string,
  headers: Record<string, string> = {},
  retryAfterMs?: number,
) =>
  classifyTrouble({ status, text, headers: new Headers(headers), retryAfterMs, tokenEnv: 'PIPEDRIVE_TOKEN' });

describe('classifyTrouble', () => {
  it('defers a burst 429 for its 2 s window, a daily one until the reset', () => {
    expect(classify(429, '{"success":false,"error":"Request over limit"}', {}, 2_000)).toMatchObject({
      kind: 'wait',
      policy: 'BURST',
      waitMs: BURST_WINDOW_MS,
    });
    expect(
      classify(
        429,
        '{"success":false,"error":"daily request budget exceeded","errorCode":429}',
        {},
        3_939_000,
      ),
    ).toMatchObject({ kind: 'wait', policy: 'DAILY', waitMs: 3_939_000 });
    expect(classify(429, '{}', { 'x-daily-ratelimit-token-remaining': '0' })).toMatchObject({
      policy: 'DAILY',
      waitMs: DAILY_PROBE_MS,
    });
  });

  it("pauses on Cloudflare's 403 HTML page, a 401 naming the variable, and a 402", () => {
    const blocked = classify(
      403,
      '<!DOCTYPE html><html><title>Attention Required! | Cloudflare</title></html>',
    );
    expect(blocked.kind).toBe('pause');
    expect(blocked.error).toContain('Cloudflare');
    const refused = classify(401, '{"success":false,"error":"unauthorized access","errorCode":401}');
    expect(refused).toMatchObject({ kind: 'pause' });
    expect(refused.error).toContain('PIPEDRIVE_TOKEN');
    expect(classify(402, '{"success":false,"error":"Payment required"}').kind).toBe('pause');
  });

  it('fails a record on 400, 404 and a JSON 403; retries 5xx', () => {
    expect(classify(400, '{"success":false,"error":"[ERR_INVALID_INPUT]: bad"}')).toEqual({
      kind: 'fail',
      error: 'HTTP 400: [ERR_INVALID_INPUT]: bad',
    });
    expect(classify(404, '{"success":false,"error":"Person not found"}').kind).toBe('fail');
    expect(
      classify(403, '{"success":false,"error":"feature capped","code":"feature_capping_deals_limit"}').kind,
    ).toBe('fail');
    const unavailable = classify(
      503,
      '{"success":false,"error":"Internal Server Error","code":"ERR_UNKNOWN"}',
    );
    expect(unavailable.kind).toBe('retry');
    expect(PIPEDRIVE_RETRY_POLICY.shouldRetry(new CrmError(503, unavailable))).toBe(true);
    expect(PIPEDRIVE_RETRY_POLICY.shouldRetry(new CrmError(429, classify(429, '{}', {}, 2_000)))).toBe(false);
  });

  it('sends a create (POST) once, and retries GET and PATCH within the call; HubSpot retries its POSTs as before', () => {
    expect(policyFor(PIPEDRIVE_RETRY_POLICY, 'POST').retries).toBe(0);
    expect(policyFor(PIPEDRIVE_RETRY_POLICY, 'PATCH').retries).toBe(2);
    expect(policyFor(PIPEDRIVE_RETRY_POLICY, 'GET').retries).toBe(2);
    expect(policyFor(DEFAULT_CRM_RETRY_POLICY, 'POST').retries).toBe(2);
  });

  it('reads the daily budget headers, and none when they are missing', () => {
    expect(
      dailyBudget(
        new Headers({
          'x-daily-ratelimit-token-limit': '30000',
          'x-daily-ratelimit-token-remaining': '1200',
        }),
      ),
    ).toEqual({ limit: 30_000, remaining: 1_200 });
    expect(dailyBudget(new Headers())).toBeUndefined();
  });
});

describe('DailyBudget', () => {
  it('holds calls back once the share of the day is spent, and forgets a report older than an hour', () => {
    let now = 0;
    const budget = new DailyBudget(0.5, () => now);
    budget.check(20);
    budget.report({ limit: 30_000, remaining: 15_005 });
    budget.check(5);
    expect(() => budget.check(20)).toThrow(/daily_token_share 0.5/);
    budget.report({ limit: 30_000, remaining: 15_000 });
    expect(() => budget.check(1)).toThrow(/daily_token_share 0.5/);
    try {
      budget.check(1);
    } catch (error) {
      expect((error as CrmError).trouble).toMatchObject({ kind: 'wait', policy: 'DAILY_SHARE' });
    }
    now += DAILY_PROBE_MS;
    budget.check(20);
  });
});

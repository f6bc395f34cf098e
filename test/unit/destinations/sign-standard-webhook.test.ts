/** Standard Webhooks signatures, checked by the specification's own library. */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { planRetry } from '../../../src/destinations/plan-retry.js';
import { standardWebhookHeaders, webhookSecretKey } from '../../../src/destinations/sign-standard-webhook.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('standardWebhookHeaders', () => {
  it('signs so that the standardwebhooks library verifies, and any one of several secrets does', () => {
    const [oldSecret, newSecret] = [secret(), secret()];
    const body = '{"type":"job.stored","data":{"n":12345678901234567890}}';
    const now = Math.floor(Date.now() / 1000);
    const headers = standardWebhookHeaders(
      'job_x_r1',
      now,
      body,
      [oldSecret, newSecret].map(webhookSecretKey),
    );
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const s of [oldSecret, newSecret]) expect(new Webhook(s).verify(body, headers)).toBeTruthy();
    expect(() => new Webhook(secret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(oldSecret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(oldSecret).verify(body, { ...headers, 'webhook-id': 'other' })).toThrow();
  });

  it('matches a frozen vector', () => {
    const key = webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const headers = standardWebhookHeaders(
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
      [key],
    );
    // The example of the Standard Webhooks specification.
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('refuses what is not a whsec_ secret, without echoing it', () => {
    for (const bad of [
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'whsec_short',
      'whsec_!!!!not-base64!!!!!!!!!!!!!!',
    ]) {
      expect(() => webhookSecretKey(bad)).toThrow(TypeError);
      try {
        webhookSecretKey(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain(bad.slice(6));
      }
    }
  });
});

describe('planRetry', () => {
  const scheduleMs = [5_000, 30_000, 120_000];
  it('follows the schedule with ±10 % jitter, then gives up', () => {
    expect(planRetry({ attempts: 1, scheduleMs, random: () => 0.5 })).toBe(5_000);
    expect(planRetry({ attempts: 2, scheduleMs, random: () => 0 })).toBe(27_000);
    expect(planRetry({ attempts: 3, scheduleMs, random: () => 0.999999 })).toBeCloseTo(132_000, -1);
    expect(planRetry({ attempts: 4, scheduleMs })).toBeUndefined();
  });
  it('waits at least what Retry-After asks, up to a day', () => {
    expect(planRetry({ attempts: 1, scheduleMs, retryAfterMs: 60_000, random: () => 0.5 })).toBe(60_000);
    expect(planRetry({ attempts: 1, scheduleMs, retryAfterMs: 1_000, random: () => 0.5 })).toBe(5_000);
    expect(planRetry({ attempts: 1, scheduleMs, retryAfterMs: 1e12, random: () => 0.5 })).toBe(86_400_000);
  });
});

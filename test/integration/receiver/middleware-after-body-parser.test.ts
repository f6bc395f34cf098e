/**
 * The library mounted after a body parser: the first delivery is answered 500 at once (the sender retries
 * while the app is fixed), naming the cause and the fix, not BODY_TIMEOUT after the body deadline; the
 * mistake is logged once, however many deliveries follow. `express.raw()` before it still works.
 */

import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookMiddleware } from '../../../src/index.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { NOW_S } from '../../helpers/receiver-harness.js';
import { startUserApp, type UserApp } from '../../helpers/user-express-app.js';
import { signDelivery } from '../../helpers/webhook-signer.js';

describe('createWebhookMiddleware mounted after a body parser', () => {
  let user: UserApp | undefined;
  const logged: Array<{ level: number; msg: string }> = [];

  beforeAll(async () => {
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => logged.push(JSON.parse(line) as { level: number; msg: string }) },
    );
    // A body deadline far longer than the test waits: an answer must not come from it.
    user = await startUserApp(
      (app, handler) => {
        app.use('/parsed', express.json());
        app.post('/parsed/hooks', createWebhookMiddleware(handler, { logger }));
        app.post('/raw/hooks', express.raw({ type: '*/*' }), createWebhookMiddleware(handler, { logger }));
      },
      { bodyDeadlineBaseMs: 60_000 },
    );
  });
  afterAll(async () => {
    await user?.close();
  });

  const deliver = async (path: string, name: 'job-change-left' | 'company-reveal') => {
    const { text, jobId } = envelopeText(name);
    const token = await signDelivery(text, { key: user!.key, iat: NOW_S, jobId });
    return fetch(`${user!.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': token },
      body: text,
      signal: AbortSignal.timeout(30_000),
    });
  };

  it('answers 500 naming the cause and the fix on the first request, and logs it once', async () => {
    const first = await deliver('/parsed/hooks', 'job-change-left');
    expect(first.status).toBe(500);
    const body = (await first.json()) as { code: string; message: string };
    expect(body.code).toBe('INTERNAL_ERROR');
    expect(body.message).toMatch(/a body parser ran first/);
    expect(body.message).toMatch(/mount createWebhookMiddleware before any body parser/);
    expect(body.message).toMatch(/express\.raw/);
    expect(first.headers.get('retry-after')).toBe('1');

    const second = await deliver('/parsed/hooks', 'company-reveal');
    expect(second.status).toBe(500);
    const errors = logged.filter((line) => line.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toBe(body.message);
  });

  it('still takes the raw bytes express.raw() leaves', async () => {
    const answer = await deliver('/raw/hooks', 'job-change-left');
    expect(answer.status).toBe(200);
  });
});

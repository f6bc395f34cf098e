/**
 * The library path: hooksync's verification and storage inside a user's own express app, built only
 * from the public surface.
 */

import { once } from 'node:events';
import type { Socket } from 'node:net';
import express, { type Express } from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createWebhookMiddleware,
  type DeliveryHandler,
  getJob,
  type HooksyncDatabase,
} from '../../../src/index.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { NOW_S } from '../../helpers/receiver-harness.js';
import { postBody } from '../../helpers/reliability-flood.js';
import { startUserApp, type UserApp } from '../../helpers/user-express-app.js';
import { createSigningKey, type SigningKey, signDelivery } from '../../helpers/webhook-signer.js';

/** The middleware on /hooks/data-service, a JSON parser after it for the app's other routes. */
function mountMiddleware(app: Express, handler: DeliveryHandler): void {
  app.post('/hooks/data-service', createWebhookMiddleware(handler));
  app.use(express.json());
  app.get('/other', (_req, res) => {
    res.json({ ok: true });
  });
}

describe('createWebhookMiddleware in a user express app', () => {
  let database: HooksyncDatabase;
  let key: SigningKey;
  let url: string;
  let user: UserApp | undefined;

  beforeAll(async () => {
    user = await startUserApp(mountMiddleware);
    ({ database, key } = user);
    url = `${user.base}/hooks/data-service`;
  });
  afterAll(async () => {
    await user?.close();
  });

  it('stores a signed delivery verbatim and refuses a tampered one', async () => {
    const { text, jobId } = envelopeText('job-change-left');
    const token = await signDelivery(text, { key, iat: NOW_S, jobId });
    const ok = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': token },
      body: text,
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ job_id: jobId, kind: 'job_change', duplicate: false });
    expect((await getJob(database.db, jobId))?.envelope).toBe(text);

    const other = envelopeText('job-change-left');
    const tampered = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-webhook-signature': await signDelivery(other.text, { key, iat: NOW_S, jobId: other.jobId }),
      },
      body: other.text.replace('left', 'moved'),
    });
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ code: 'BODY_HASH_MISMATCH' });
  });

  it('applies the serve rules: a forged token is refused unread, an unsigned body kept to its prefix', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 0x20);
    const forged = await signDelivery('{}', {
      key: await createSigningKey(key.kid),
      iat: NOW_S,
      jobId: envelopeText('company-reveal').jobId,
    });
    const forgedAnswer = await postBody(
      url,
      big,
      { 'content-type': 'application/json', 'x-webhook-signature': forged },
      10_000,
    );
    expect(['401', 'reset']).toContain(String(forgedAnswer.status ?? forgedAnswer.ended));
    const unsigned = await postBody(url, big, { 'content-type': 'application/json' }, 10_000);
    expect(['401', 'reset']).toContain(String(unsigned.status ?? unsigned.ended));
    const rows = await database.db.selectFrom('quarantine').select(['reason', 'body_bytes']).execute();
    expect(rows.map((row) => row.reason)).toEqual(
      expect.arrayContaining(['SIGNATURE_INVALID', 'SIGNATURE_MISSING']),
    );
    expect(Math.max(...rows.map((row) => row.body_bytes))).toBeLessThanOrEqual(64 * 1024);
    expect(rows.find((row) => row.reason === 'SIGNATURE_INVALID')?.body_bytes).toBe(0);
  });
});

describe('createWebhookMiddleware refusing a body over its memory budget', () => {
  let user: UserApp | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await user?.close();
    user = undefined;
  });

  it('answers 429 with Retry-After that fetch reads, half-closes without a reset, reads almost none of the body', async () => {
    user = await startUserApp(mountMiddleware, { bodyBudgetBytes: 1024 * 1024 });
    const url = `${user.base}/hooks/data-service`;
    const sockets: Socket[] = [];
    user.server.on('connection', (socket: Socket) => sockets.push(socket));
    // Larger than what loopback's socket buffers take at once: the sender is still sending when refused.
    const { text, jobId } = envelopeText('search-contact');
    const large = text + ' '.repeat(16 * 1024 * 1024 - Buffer.byteLength(text));
    const token = await signDelivery(large, { key: user.key, iat: NOW_S, jobId });
    // The connection's end is on a timer: held still, the moments below are told apart without a duration.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Node's fetch, as the simulator's sender posts.
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': token },
      body: large,
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ code: 'BODY_BUDGET' });
    expect(sockets).toHaveLength(1);
    const [socket] = sockets as [Socket];
    // The answer is out and the connection half-closed, but the socket is not destroyed: closing it with
    // the sender's unread bytes in its buffer would reset the connection, and a sender still sending can
    // see the reset before the answer (at 16 MiB from another process, most do: bench/RESULTS.md).
    while (!socket.writableFinished) await new Promise((resolve) => setImmediate(resolve));
    expect(socket.destroyed).toBe(false);
    vi.runOnlyPendingTimers();
    if (!socket.closed) await once(socket, 'close');
    // node:http did not read the rest of the body to drop it.
    expect(socket.bytesRead).toBeLessThan(1024 * 1024);
    expect(await getJob(user.database.db, jobId)).toBeUndefined();
    // The app goes on answering on new connections.
    expect((await fetch(`${user.base}/other`)).status).toBe(200);
  });
});

/**
 * The library path: hooksync's verification and storage inside a user's own express app, built only
 * from the public surface.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeliveryHandler,
  createJobStore,
  createKeySetCache,
  createWebhookMiddleware,
  getJob,
  type HooksyncDatabase,
  type JobStore,
  openMigratedDatabase,
} from '../../../src/index.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { NOW_MS, NOW_S } from '../../helpers/receiver-harness.js';
import { postBody } from '../../helpers/reliability-flood.js';
import {
  createSigningKey,
  type JwksServer,
  type SigningKey,
  signDelivery,
  startJwksServer,
} from '../../helpers/webhook-signer.js';

describe('createWebhookMiddleware in a user express app', () => {
  let dir: string;
  let database: HooksyncDatabase;
  let store: JobStore;
  let key: SigningKey;
  let jwks: JwksServer;
  let url: string;
  let server: ReturnType<express.Express['listen']>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hooksync-mw-'));
    database = await openMigratedDatabase(join(dir, 'app.db'));
    store = createJobStore({ database });
    key = await createSigningKey();
    jwks = await startJwksServer([key.publicJwk]);
    const keys = createKeySetCache({ url: jwks.url });
    await keys.load();
    const handler = createDeliveryHandler({
      keys,
      store,
      database,
      unsigned: 'reject',
      now: () => NOW_MS,
    });
    const app = express();
    app.post('/hooks/data-service', createWebhookMiddleware(handler));
    app.use(express.json());
    app.get('/other', (_req, res) => {
      res.json({ ok: true });
    });
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/data-service`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await store?.close();
    await database?.close();
    await jwks?.close();
    rmSync(dir, { recursive: true, force: true });
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

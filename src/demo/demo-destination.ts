/**
 * The demo's webhook destination: a small consumer on 127.0.0.1 that checks each request's Standard
 * Webhooks signature with the destination's secret and records which job revisions it received, so the
 * demo can show every stored job handed on, signed.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { standardWebhookHeaders, webhookSecretKey } from '../destinations/sign-standard-webhook.js';

/** The destination's name in the demo. */
export const DEMO_DESTINATION_NAME = 'demo-consumer';

/** A running demo consumer. */
export interface DemoConsumer {
  readonly url: string;
  readonly secret: string;
  /** Job ids received with a valid signature. */
  readonly jobIds: Set<string>;
  /** Requests whose signature did not check out. */
  readonly badSignatures: () => number;
  close(): Promise<void>;
}

/** Starts the consumer with a fresh `whsec_` secret. */
export async function startDemoConsumer(): Promise<DemoConsumer> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const key = webhookSecretKey(secret);
  const jobIds = new Set<string>();
  let bad = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id']);
      const timestamp = Number(request.headers['webhook-timestamp']);
      const expected = standardWebhookHeaders(id, timestamp, body, [key])['webhook-signature']!;
      const given = String(request.headers['webhook-signature'] ?? '').split(' ');
      const valid = given.some(
        (signature) =>
          signature.length === expected.length &&
          timingSafeEqual(Buffer.from(signature), Buffer.from(expected)),
      );
      if (!valid) {
        bad += 1;
        response.writeHead(400).end();
        return;
      }
      const event = JSON.parse(body) as { data?: { job_id?: string } };
      if (typeof event.data?.job_id === 'string') jobIds.add(event.data.job_id);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    secret,
    jobIds,
    badSignatures: () => bad,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

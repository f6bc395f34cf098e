/**
 * The receiver's HTTP server. POST /webhooks goes straight from node:http to the delivery handler (the hot
 * path: express's router and body parsers would cost more than the whole verification); everything else —
 * health, readiness, metrics, admin — is an express 5 app.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { WEBHOOK_SIGNATURE_HEADER } from '../contract/webhook-signature.js';
import type { ReceiverMetrics } from './create-metrics.js';
import type { DeliveryAnswer } from './delivery-answer.js';
import { retryLater } from './delivery-answer.js';
import type { DeliveryHandler } from './handle-delivery.js';
import { BodyReadError, DEFAULT_BODY_LIMIT_BYTES, readBody } from './read-body.js';

/** Deliveries in progress beyond which new ones get 429 (the sender retries later). */
export const DEFAULT_MAX_IN_FLIGHT = 2048;
/** Path of the webhook route. */
export const WEBHOOK_PATH = '/webhooks';

/** What the server needs. */
export interface ReceiverDeps {
  handleDelivery: DeliveryHandler;
  metrics: ReceiverMetrics;
  /** For /readyz: resolves when the database answers and the key set is loaded. */
  isReady: () => Promise<{ ready: boolean; checks: Record<string, boolean> }>;
  logger?: Logger;
  /** Default {@link DEFAULT_BODY_LIMIT_BYTES}. */
  bodyLimitBytes?: number;
  /** Default {@link DEFAULT_MAX_IN_FLIGHT}. */
  maxInFlight?: number;
  /** Extra routes (admin API, status page) mounted on the express app. */
  extend?: (app: Express) => void;
}

/** A running receiver. */
export interface Receiver {
  readonly server: Server;
  /** Starts listening; resolves with the base URL. */
  listen(port: number, host: string): Promise<string>;
  /** Stops accepting, lets in-flight deliveries finish, then resolves. */
  close(): Promise<void>;
  /** Deliveries being handled right now. */
  inFlight(): number;
}

/** Builds the server (not yet listening). */
export function createReceiver(deps: ReceiverDeps): Receiver {
  const limit = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const maxInFlight = deps.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const app = createAdminApp(deps);
  let inFlight = 0;
  let idle: (() => void) | undefined;

  async function onWebhook(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (inFlight >= maxInFlight) {
      request.resume();
      send(response, retryLater('OVERLOADED', 'too many deliveries in progress; retry later', 429));
      return;
    }
    inFlight++;
    try {
      const contentType = request.headers['content-type'];
      const signature = header(request, WEBHOOK_SIGNATURE_HEADER);
      let body: Buffer;
      try {
        body = await readBody(request, limit);
      } catch (error) {
        if (error instanceof BodyReadError && error.reason === 'too_large') {
          response.setHeader('connection', 'close');
          // The body is not kept, but the token's claimed job_id still becomes a hint for reconcile.
          send(
            response,
            await deps.handleDelivery.tooLarge({ body: Buffer.alloc(0), contentType, signature }, limit),
          );
        } else {
          response.destroy();
        }
        return;
      }
      send(response, await deps.handleDelivery.handle({ body, contentType, signature }));
    } finally {
      inFlight--;
      if (inFlight === 0) idle?.();
    }
  }

  const server = createServer((request, response) => {
    if (request.method === 'POST' && pathOf(request.url) === WEBHOOK_PATH) {
      void onWebhook(request, response);
      return;
    }
    app(request, response);
  });
  // Bound slow senders (slow-loris): headers within 10 s, the whole request within 60 s.
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;

  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      server.closeAllConnections();
      await closed;
    },
    inFlight: () => inFlight,
  };
}

function createAdminApp(deps: ReceiverDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness = await deps.isReady();
    res
      .status(readiness.ready ? 200 : 500)
      .json({ status: readiness.ready ? 'ready' : 'not_ready', ...readiness });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  deps.extend?.(app);
  app.use((req, res) => {
    res
      .status(404)
      .json({ status: 'error', code: 'NOT_FOUND', message: `no route for ${req.method} ${req.path}` });
  });
  return app;
}

function send(response: ServerResponse, answer: DeliveryAnswer): void {
  const payload = JSON.stringify(answer.body);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  };
  if (answer.retryAfterSeconds !== undefined) headers['retry-after'] = answer.retryAfterSeconds;
  response.writeHead(answer.status, headers).end(payload);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

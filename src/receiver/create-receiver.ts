/**
 * The receiver's HTTP server. POST /webhooks goes straight from node:http to the delivery handler (the hot
 * path: express's router and body parsers would cost more than the whole verification); everything else —
 * health, readiness, metrics, admin — is an express 5 app.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { ErrorAnswerBody } from '../errors.js';
import type { ReceiverMetrics } from './create-metrics.js';
import type { DeliveryAnswer } from './delivery-answer.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from './delivery-limits.js';
import type { DeliveryHandler } from './handle-delivery.js';
import { lingerIfUnread } from './linger-without-reading.js';

/** Deliveries in progress beyond which new ones get 429 (the sender retries later). */
export const DEFAULT_MAX_IN_FLIGHT = 2048;
/** Time for a request's headers to arrive, in ms. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Time for a whole request to arrive, in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** How often Node checks the two timeouts above, in ms. */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000;
/** Path of the webhook route. */
export const WEBHOOK_PATH = '/webhooks';

/** What the server needs. */
export interface ReceiverDeps {
  handleDelivery: DeliveryHandler;
  metrics: ReceiverMetrics;
  /** For /readyz: resolves when the database answers and the key set is loaded. */
  isReady: () => Promise<{ ready: boolean; checks: Record<string, boolean> }>;
  logger?: Logger;
  /** How long close() waits for deliveries in flight, ms; default {@link DEFAULT_SHUTDOWN_GRACE_MS}. */
  shutdownGraceMs?: number;
  /** Default {@link DEFAULT_HEADERS_TIMEOUT_MS}. */
  headersTimeoutMs?: number;
  /** Default {@link DEFAULT_REQUEST_TIMEOUT_MS}. */
  requestTimeoutMs?: number;
  /** Default {@link DEFAULT_MAX_IN_FLIGHT}. */
  maxInFlight?: number;
  /** Open connections at most (past it Node closes new ones at once); default none. */
  maxConnections?: number;
  /** Largest request header block, bytes (past it: 431); default Node's 16 KiB. */
  maxHeaderBytes?: number;
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
  const maxInFlight = deps.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const app = createAdminApp(deps);
  let inFlight = 0;
  let idle: (() => void) | undefined;

  async function onWebhook(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (inFlight >= maxInFlight) {
      send(response, deps.handleDelivery.overloaded());
      return;
    }
    inFlight++;
    try {
      const answer = await deps.handleDelivery.receive(request);
      if (answer.connection === 'destroy') response.destroy();
      else {
        lingerIfUnread(request, answer);
        send(response, answer);
      }
    } finally {
      inFlight--;
      if (inFlight === 0) idle?.();
    }
  }

  const server = createServer(
    // Node looks for expired header and request timeouts only this often (default 30 s): without it, a
    // slow sender would keep its connection up to 30 s past the timeouts below (issue 19).
    {
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      ...(deps.maxHeaderBytes !== undefined ? { maxHeaderSize: deps.maxHeaderBytes } : {}),
    },
    (request, response) => {
      if (request.method === 'POST' && pathOf(request.url) === WEBHOOK_PATH) {
        void onWebhook(request, response);
        return;
      }
      app(request, response);
    },
  );
  // Bound slow senders (slow-loris): headers within 10 s, the whole request within 60 s (by default).
  server.headersTimeout = deps.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  server.requestTimeout = deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // Connections cost memory before any byte of a body (issue 43): under a ceiling, they are bounded too.
  if (deps.maxConnections !== undefined) server.maxConnections = deps.maxConnections;

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
      // Drained within the grace period; past it, what is still in flight is cut (the sender retries).
      const graceMs = deps.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
      let timer: NodeJS.Timeout | undefined;
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, graceMs);
          }),
        ]);
      }
      clearTimeout(timer);
      server.closeAllConnections();
      await closed;
      await deps.handleDelivery.close(graceMs);
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
    res.status(404).json({
      status: 'error',
      code: 'NOT_FOUND',
      message: `no route for ${req.method} ${req.path}`,
    } satisfies ErrorAnswerBody);
  });
  return app;
}

function send(response: ServerResponse, answer: DeliveryAnswer): void {
  const payload = JSON.stringify(answer.body);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  };
  // The body was not (wholly) read: Node closes the connection once the answer is written.
  if (answer.connection === 'close') headers.connection = 'close';
  if (answer.retryAfterSeconds !== undefined) headers['retry-after'] = answer.retryAfterSeconds;
  response.writeHead(answer.status, headers).end(payload);
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

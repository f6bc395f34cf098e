/**
 * A destination's consumer for tests: a real HTTP server on 127.0.0.1 port 0 that verifies every request
 * with the `standardwebhooks` package (an implementation hooksync did not write) and records what it
 * accepted. Its answer is up to the test: 2xx, an outage (503), a hang, 410, ...
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  type HttpStubServer,
  type StubAction,
  type StubRequest,
  startHttpStubServer,
} from './http-stub-server.js';

/** A fresh `whsec_` secret. */
export function createWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** One verified request. */
export interface ConsumedEvent {
  readonly id: string;
  readonly body: string;
  readonly event: {
    type: string;
    timestamp: string;
    data: {
      job_id: string;
      kind: string;
      source: string;
      status: string;
      revision: number;
      rows?: unknown[];
    };
  };
  /** The answer the consumer gave it. */
  readonly answered: StubAction;
}

/** A running consumer. */
export interface StandardWebhookConsumer {
  readonly url: string;
  readonly server: HttpStubServer;
  /** Requests that verified, in arrival order (whatever was answered). */
  readonly verified: ConsumedEvent[];
  /** Requests that did not verify, with the library's reason. */
  readonly rejected: Array<{ request: StubRequest; reason: string }>;
  /** Requests being handled right now, and the most at once so far. */
  readonly concurrency: { now: number; max: number };
  /** Sets how the next requests are answered (default 204). */
  answer(
    decide: (event: ConsumedEvent['event'], request: StubRequest) => StubAction | Promise<StubAction>,
  ): void;
  /** Verified events answered 2xx, by job_id and revision. */
  accepted(): ConsumedEvent[];
  close(): Promise<void>;
}

/** Starts a consumer verifying with `secret` (and any other secrets given, as during a rotation). */
export async function startStandardWebhookConsumer(secret: string): Promise<StandardWebhookConsumer> {
  const verifier = new Webhook(secret);
  const verified: ConsumedEvent[] = [];
  const rejected: Array<{ request: StubRequest; reason: string }> = [];
  const concurrency = { now: 0, max: 0 };
  let decide: (event: ConsumedEvent['event'], request: StubRequest) => StubAction | Promise<StubAction> =
    () => ({
      status: 204,
    });
  const server = await startHttpStubServer(async (request) => {
    let event: ConsumedEvent['event'];
    try {
      event = verifier.verify(
        request.body,
        request.headers as Record<string, string>,
      ) as ConsumedEvent['event'];
    } catch (error) {
      rejected.push({ request, reason: (error as Error).message });
      return { status: 400, body: 'bad signature' };
    }
    concurrency.now += 1;
    concurrency.max = Math.max(concurrency.max, concurrency.now);
    try {
      const answered = await decide(event, request);
      verified.push({ id: String(request.headers['webhook-id']), body: request.body, event, answered });
      return answered;
    } finally {
      concurrency.now -= 1;
    }
  });
  return {
    url: `${server.url}/hooks`,
    server,
    verified,
    rejected,
    concurrency,
    answer(next) {
      decide = next;
    },
    accepted: () =>
      verified.filter((entry) => typeof entry.answered === 'object' && (entry.answered.status ?? 200) < 300),
    close: () => server.close(),
  };
}

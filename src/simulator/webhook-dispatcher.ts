/**
 * Webhook delivery (Events part): POSTs a finished job's finder payload to its webhook_url in the
 * background, signed, retried up to 5 times on 429/500/502/504 or a network error with exponential
 * backoff (base * 2^n), never on any other status. Injects the configured faults and records every attempt.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { WEBHOOK_MAX_RETRIES, WEBHOOK_RETRY_STATUSES } from '../contract/limits.js';
import { WEBHOOK_SIGNATURE_HEADER } from '../contract/webhook-signature.js';
import type { ActivityTracker } from './activity-tracker.js';
import type { SeededRandom } from './data/seeded-random.js';
import { type DeliveryFault, type FaultRates, pickFault } from './delivery-faults.js';
import { formatServiceDate } from './service-date.js';
import { signWebhookToken, type WebhookToken } from './sign-webhook-token.js';
import type { SigningKeyRing } from './signing-key-ring.js';

/** One delivery attempt, as GET /_sim/deliveries lists it. */
export interface DeliveryRecord {
  readonly job_id: string;
  readonly url: string;
  /** 1, or 2 for the second copy of a duplicated delivery. */
  readonly copy: number;
  /** 1 for the first send, 2 to 6 for the retries; 0 for a dropped delivery (never sent). */
  readonly attempt: number;
  /** The token's id; null when sent unsigned or dropped. */
  readonly jti: string | null;
  /** The signing key's id; null when sent unsigned or dropped. */
  readonly kid: string | null;
  /** The receiver's HTTP status, when it answered. */
  readonly status?: number;
  /** Why no status: a network error, the per-attempt timeout, or the drop fault. */
  readonly error?: string;
  readonly fault: DeliveryFault | null;
  /** When the attempt was sent, in the service's date format. */
  readonly at: string;
}

/** What {@link WebhookDispatcher} needs. */
export interface WebhookDispatcherDeps {
  readonly keyRing: SigningKeyRing;
  readonly now: () => number;
  readonly fetch: typeof globalThis.fetch;
  readonly activity: ActivityTracker;
  /** Decides each delivery's fault. */
  readonly faultRandom: SeededRandom;
  /** Shuffles a reorder window. */
  readonly shuffleRandom: SeededRandom;
  readonly logger: Logger;
}

/** Delivery settings. */
export interface WebhookDispatcherConfig {
  /** Backoff base in ms: retry n (1-based) waits base * 2^(n-1). */
  readonly retryBaseMs: number;
  /** Per-attempt timeout in ms; a timeout counts as a network error (retried). */
  readonly deliveryTimeoutMs: number;
  /** Retries reuse their copy's first token instead of a fresh jti and iat (each copy of a duplicate signs anew). */
  readonly reuseToken: boolean;
  /** Send every callback without the signature header. */
  readonly unsigned: boolean;
  /** Rotate the signing key after every N signed deliveries; undefined never. */
  readonly rotateEvery: number | undefined;
  readonly faults: FaultRates;
  /** Wait before the first attempt of each delivery, in ms. */
  readonly delayMs: number;
  /** Collect deliveries for this many ms, then send them in a shuffled order; undefined: no reordering. */
  readonly reorderWindowMs: number | undefined;
}

/** A job whose callback is due: its id, the URL and the exact finder text. */
export interface DueCallback {
  readonly jobId: string;
  readonly url: string;
  readonly body: string;
}

interface Delivery extends DueCallback {
  readonly fault: DeliveryFault | null;
  readonly end: () => void;
}

/** The tampered body: one member added after signing, so the body_hash no longer matches. */
export function tamperBody(body: string): string {
  return body.endsWith('}') ? `${body.slice(0, -1)},"tampered":true}` : `${body} `;
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timeout';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}

/** Sends callbacks in the background and keeps the log of attempts. */
export class WebhookDispatcher {
  readonly #deps: WebhookDispatcherDeps;
  readonly #config: WebhookDispatcherConfig;
  readonly #records: DeliveryRecord[] = [];
  readonly #closing = new AbortController();
  #batch: Delivery[] = [];
  #batchTimer: NodeJS.Timeout | undefined;
  #signedDeliveries = 0;

  constructor(deps: WebhookDispatcherDeps, config: WebhookDispatcherConfig) {
    // Every delivery in flight waits on this one signal (retry sleeps, timeouts): thousands at once are normal.
    setMaxListeners(0, this.#closing.signal);
    this.#deps = deps;
    this.#config = config;
  }

  /** Every attempt so far, oldest first. */
  records(): readonly DeliveryRecord[] {
    return this.#records;
  }

  /** Forgets the attempt log (deliveries in flight go on). */
  clearRecords(): void {
    this.#records.length = 0;
  }

  /** Schedules the callback of a finished job; returns at once. */
  dispatch(callback: DueCallback): void {
    if (this.#closing.signal.aborted) return;
    const delivery: Delivery = {
      ...callback,
      fault: pickFault(this.#config.faults, this.#deps.faultRandom.next()),
      end: this.#deps.activity.begin(),
    };
    if (delivery.fault === 'drop') {
      this.#record(delivery, { copy: 1, attempt: 0, token: undefined, error: 'dropped (fault injection)' });
      delivery.end();
      return;
    }
    void this.#schedule(delivery);
  }

  async #schedule(delivery: Delivery): Promise<void> {
    try {
      if (this.#config.delayMs > 0)
        await sleep(this.#config.delayMs, undefined, { signal: this.#closing.signal });
    } catch {
      delivery.end();
      return;
    }
    if (this.#config.reorderWindowMs === undefined) {
      void this.#launch(delivery);
      return;
    }
    this.#batch.push(delivery);
    this.#batchTimer ??= setTimeout(() => void this.#flushBatch(), this.#config.reorderWindowMs);
  }

  async #flushBatch(): Promise<void> {
    this.#batchTimer = undefined;
    const batch = this.#deps.shuffleRandom.sample(this.#batch, this.#batch.length);
    this.#batch = [];
    // First attempts go out one after another, so the receiver sees the shuffled order.
    for (const delivery of batch) await this.#launch(delivery);
  }

  /** Sends every copy's first attempt in turn; resolves once they are sent, retries go on in the background. */
  async #launch(delivery: Delivery): Promise<void> {
    const copies = delivery.fault === 'duplicate' ? 2 : 1;
    const done: Promise<void>[] = [];
    for (let copy = 1; copy <= copies; copy += 1) {
      const { sent, finished } = this.#runCopy(delivery, copy);
      done.push(finished);
      await sent;
    }
    void Promise.all(done).then(delivery.end);
  }

  #runCopy(delivery: Delivery, copy: number): { sent: Promise<void>; finished: Promise<void> } {
    let markSent: () => void = () => {};
    const sent = new Promise<void>((resolve) => {
      markSent = resolve;
    });
    const finished = (async () => {
      let firstToken: WebhookToken | undefined;
      try {
        for (let attempt = 1; ; attempt += 1) {
          const token = this.#tokenFor(delivery, firstToken);
          firstToken ??= token;
          const retry = await this.#attempt(delivery, copy, attempt, token);
          if (attempt === 1) markSent();
          if (!retry || attempt > WEBHOOK_MAX_RETRIES) return;
          await sleep(this.#config.retryBaseMs * 2 ** (attempt - 1), undefined, {
            signal: this.#closing.signal,
          });
        }
      } catch (error) {
        // The simulator closing interrupts a delivery on purpose; anything else is a bug worth a log line.
        if (!this.#closing.signal.aborted) {
          this.#deps.logger.error({ err: error, job_id: delivery.jobId }, 'webhook delivery failed');
        }
      } finally {
        markSent();
      }
    })();
    return { sent, finished };
  }

  #tokenFor(delivery: Delivery, firstToken: WebhookToken | undefined): WebhookToken | undefined {
    if (this.#config.unsigned || delivery.fault === 'unsigned') return undefined;
    if (this.#config.reuseToken && firstToken !== undefined) return firstToken;
    const { keyRing, now } = this.#deps;
    const token = signWebhookToken({
      key: keyRing.current,
      jobId: delivery.jobId,
      body: delivery.body,
      nowMs: now(),
    });
    if (firstToken === undefined) {
      this.#signedDeliveries += 1;
      const every = this.#config.rotateEvery;
      if (every !== undefined && this.#signedDeliveries % every === 0) keyRing.rotate();
    }
    return token;
  }

  /** One POST; true when the outcome calls for a retry. */
  async #attempt(
    delivery: Delivery,
    copy: number,
    attempt: number,
    token: WebhookToken | undefined,
  ): Promise<boolean> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'hooksync-sim',
    };
    if (token !== undefined) headers[WEBHOOK_SIGNATURE_HEADER] = token.token;
    const body = Buffer.from(delivery.fault === 'tamper' ? tamperBody(delivery.body) : delivery.body, 'utf8');
    const at = this.#deps.now();
    try {
      const response = await this.#deps.fetch(delivery.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([this.#closing.signal, AbortSignal.timeout(this.#config.deliveryTimeoutMs)]),
      });
      await response.arrayBuffer().catch(() => undefined);
      this.#record(delivery, { copy, attempt, token, status: response.status, at });
      return WEBHOOK_RETRY_STATUSES.includes(response.status);
    } catch (error) {
      if (this.#closing.signal.aborted) throw error;
      this.#record(delivery, { copy, attempt, token, error: describeFailure(error), at });
      return true;
    }
  }

  #record(
    delivery: Delivery,
    outcome: {
      copy: number;
      attempt: number;
      token: WebhookToken | undefined;
      status?: number;
      error?: string;
      at?: number;
    },
  ): void {
    const record: DeliveryRecord = {
      job_id: delivery.jobId,
      url: delivery.url,
      copy: outcome.copy,
      attempt: outcome.attempt,
      jti: outcome.token?.claims.jti ?? null,
      kid: outcome.token?.kid ?? null,
      ...(outcome.status === undefined ? {} : { status: outcome.status }),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      fault: delivery.fault,
      at: formatServiceDate(outcome.at ?? this.#deps.now()),
    };
    this.#records.push(record);
    this.#deps.logger.debug(
      {
        job_id: record.job_id,
        attempt: record.attempt,
        status: record.status,
        error: record.error,
        fault: record.fault,
      },
      'webhook delivery attempt',
    );
    this.#deps.activity.notify();
  }

  /** Stops every delivery: in-flight requests are aborted, waits cut short, pending batches dropped. */
  close(): void {
    this.#closing.abort(new Error('simulator closed'));
    clearTimeout(this.#batchTimer);
    for (const delivery of this.#batch) delivery.end();
    this.#batch = [];
  }
}

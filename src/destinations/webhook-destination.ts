/**
 * The `webhook` destination: one POST per event, JSON, signed per Standard Webhooks. The stored envelope is
 * embedded as its exact text (never parsed and re-serialized, so int64 digits and escapes survive).
 * 2xx is delivered; 410 pauses the destination; network errors, timeouts, 429 and 5xx are retried
 * (honouring Retry-After); any other answer fails the event at once.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseRetryAfterSeconds } from '../client/retry-after.js';
import {
  destinationNameSchema,
  durationSchema,
  kindsSchema,
  rateSchema,
  secretRefSchema,
  signingSecrets,
} from './config-fields.js';
import {
  type AttemptResult,
  type DestinationDeps,
  defineDestinationType,
  type OutboxDelivery,
  type OutboxDestination,
} from './destination-type.js';
import { readAnswer } from './read-answer.js';
import { standardWebhookHeaders, webhookSecretKey } from './sign-standard-webhook.js';

/** Per-attempt timeout when none is configured. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** Attempts in flight per destination when none is configured. */
export const DEFAULT_WEBHOOK_CONCURRENCY = 4;
/** The waits between attempts when none is configured: about a day in all. */
export const DEFAULT_RETRY_SCHEDULE = [
  '5s',
  '30s',
  '2m',
  '10m',
  '30m',
  '1h',
  '2h',
  '4h',
  '8h',
  '8h',
] as const;

const urlSchema = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  },
  { message: 'must be an http(s) URL' },
);

const webhookSchema = z.strictObject({
  name: destinationNameSchema,
  type: z.literal('webhook'),
  url: urlSchema,
  secret: z.union([secretRefSchema, z.array(secretRefSchema).min(1).max(5)]),
  kinds: kindsSchema,
  timeout: durationSchema.optional(),
  retry: z.strictObject({ schedule: z.array(durationSchema).min(1).max(50) }).optional(),
  concurrency: z.number().int().min(1).max(256).optional(),
  rate: rateSchema.optional(),
  template: z.string().min(1).optional(),
});

/** A `webhook` destination as configured (secrets still as references). */
export type WebhookDestinationConfig = z.output<typeof webhookSchema>;

/** The body of a `watch.change` event: the change, with what was known before and what is known now. */
export function watchChangeBody(delivery: OutboxDelivery, timestampIso: string): string {
  const change = delivery.change!;
  return JSON.stringify({
    type: 'watch.change',
    timestamp: timestampIso,
    data: {
      watch: change.watch,
      change: change.change,
      key: change.key,
      custom_fields: change.custom_fields,
      before: change.before,
      after: change.after,
      detected_at: change.detected_at,
      job_id: change.job_id,
      ...(delivery.rows !== undefined ? { rows: delivery.rows } : {}),
    },
  });
}

/** The body of a `job.stored` event, with the envelope's stored text spliced in verbatim. */
export function jobStoredBody(delivery: OutboxDelivery, timestampIso: string): string {
  const data = {
    job_id: delivery.jobId,
    kind: delivery.kind,
    source: delivery.source,
    status: delivery.status,
    revision: delivery.revision,
    ...(delivery.rows !== undefined ? { rows: delivery.rows } : {}),
  };
  const head = JSON.stringify({ type: 'job.stored', timestamp: timestampIso, data });
  // head ends with the two closing braces of data and of the event: the envelope goes in before them.
  return `${head.slice(0, -2)},"envelope":${delivery.envelopeText}}}`;
}

function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'timed out';
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code !== undefined ? `network error (${code})` : 'network error';
}

/** What one answer means for the event. */
function classify(status: number, answer: string, retryAfter: string | null, nowMs: number): AttemptResult {
  if (status >= 200 && status < 300) return { outcome: 'delivered', status };
  const error = answer === '' ? `HTTP ${status}` : `HTTP ${status}: ${answer.slice(0, 200)}`;
  if (status === 410) return { outcome: 'pause', status, error };
  if (status === 429 || status >= 500) {
    const seconds = parseRetryAfterSeconds(retryAfter, undefined, nowMs);
    return {
      outcome: 'retry',
      status,
      error,
      ...(seconds !== undefined ? { retryAfterMs: Math.round(seconds * 1000) } : {}),
    };
  }
  return { outcome: 'fail', status, error };
}

function createWebhookDestination(
  config: WebhookDestinationConfig,
  secrets: readonly string[],
  deps: DestinationDeps,
): OutboxDestination {
  const keys = secrets.map(webhookSecretKey);
  const send = async (id: string, body: string, signal: AbortSignal): Promise<AttemptResult> => {
    const nowMs = deps.now();
    let response: Response;
    try {
      response = await deps.fetch(config.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'hooksync-destinations',
          ...standardWebhookHeaders(id, Math.floor(nowMs / 1000), body, keys),
        },
        body,
        redirect: 'manual',
        signal,
      });
    } catch (error) {
      return { outcome: 'retry', status: null, error: describeFailure(error, signal) };
    }
    const answer = await readAnswer(response);
    if (signal.aborted) return { outcome: 'retry', status: null, error: 'timed out reading the answer' };
    return classify(response.status, answer, response.headers.get('retry-after'), deps.now());
  };
  return {
    kind: 'outbox',
    template: config.template,
    deliver: (delivery, signal) => {
      const timestamp = new Date(deps.now()).toISOString();
      const body =
        delivery.change === undefined
          ? jobStoredBody(delivery, timestamp)
          : watchChangeBody(delivery, timestamp);
      return send(delivery.eventId, body, signal);
    },
    ping(signal) {
      const timestamp = new Date(deps.now()).toISOString();
      const body = JSON.stringify({ type: 'ping', timestamp, data: { destination: config.name } });
      return send(`ping_${randomUUID()}`, body, signal);
    },
  };
}

/** The `webhook` destination type. */
export const WEBHOOK_DESTINATION = defineDestinationType({
  type: 'webhook',
  resolveSecrets: signingSecrets,
  schema: webhookSchema,
  dispatchSettings: (config) => ({
    timeoutMs: config.timeout ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
    scheduleMs: config.retry?.schedule ?? DEFAULT_RETRY_SCHEDULE.map((text) => durationSchema.parse(text)),
    concurrency: config.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY,
    rate: config.rate,
    kinds: config.kinds,
  }),
  create: createWebhookDestination,
});

/**
 * One webhook delivery, start to end, framework-free: verify, store, answer. Used by the receiver's own
 * server and by the express middleware for users' apps.
 */
import type { Logger } from 'pino';
import type { UnsignedPolicy } from '../config/load-config.js';
import { isJobId } from '../contract/job-id.js';
import { claimedJobId, detectJobKind } from '../contract/job-kind.js';
import { parseJsonText } from '../contract/json.js';
import { SignatureError, StorageError } from '../errors.js';
import type { JobKind } from '../storage/database.js';
import type { JobStore } from '../storage/job-store.js';
import { decodeClaimsUnverified } from '../webhooks/decode-claims-unverified.js';
import type { KeySetCache } from '../webhooks/key-set-cache.js';
import { verifyCallback } from '../webhooks/verify-callback.js';
import type { DeliveryStats } from './create-delivery-stats.js';
import type { ReceiverMetrics } from './create-metrics.js';
import {
  type DeliveryAnswer,
  HINTED_REFUSALS,
  type RequestRefusal,
  refusal,
  retryLater,
} from './delivery-answer.js';
import { isJsonContentType } from './read-body.js';

/** A delivery as read off the wire. */
export interface DeliveryRequest {
  body: Buffer;
  contentType: string | undefined;
  /** The X-Webhook-Signature header, if any. */
  signature: string | undefined;
}

/** Fetches a job from its finder: the exact response text and its parsed value. */
export type FinderFetch = (
  kind: 'job_change' | 'search_contact',
  jobId: string,
) => Promise<{ raw: string; job: unknown }>;

/** What a delivery handler works with. */
export interface DeliveryHandlerDeps {
  keys: KeySetCache;
  store: JobStore;
  /** Records a ledger hint for a refused callback whose job may be real. */
  recordHint: (hint: { job_id: string; kind: JobKind }) => Promise<void>;
  /** HOOKSYNC_UNSIGNED: reject, or fetch the job from its finder. */
  unsigned: UnsignedPolicy;
  /** Needed when `unsigned` is fetch. */
  fetchFromFinder?: FinderFetch;
  now?: () => number;
  /** Clock tolerance for iat/exp, seconds (default 60). */
  toleranceSeconds?: number;
  logger?: Logger;
  metrics?: ReceiverMetrics;
  /** Per-hour outcome counts for the status page. */
  stats?: DeliveryStats;
}

/** Answers deliveries. Never throws: every failure becomes an answer. */
export interface DeliveryHandler {
  /** Verifies and stores one delivery. */
  handle(request: DeliveryRequest): Promise<DeliveryAnswer>;
  /** Answers a delivery whose body was over the limit (413): quarantined without its body, hinted. */
  tooLarge(request: DeliveryRequest, limitBytes: number): Promise<DeliveryAnswer>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Creates the handler. */
export function createDeliveryHandler(deps: DeliveryHandlerDeps): DeliveryHandler {
  const { store, logger, metrics } = deps;

  /** Quarantines a refused body and leaves a hint when the refusal does not prove forgery. */
  async function refuse(
    request: DeliveryRequest,
    reason: Parameters<typeof refusal>[0],
    message: string,
    envelope?: unknown,
  ): Promise<DeliveryAnswer> {
    const answer = refusal(reason, message);
    const claimed = claimFrom(request, envelope);
    try {
      await store.quarantine({
        reason,
        detail: message,
        claimedJobId: claimed.job_id,
        kind: claimed.kind,
        contentType: request.contentType,
        body: request.body,
      });
      if (HINTED_REFUSALS.has(reason) && claimed.job_id !== undefined) {
        await deps.recordHint({ job_id: claimed.job_id, kind: claimed.kind ?? 'unknown' });
      }
    } catch (error) {
      // A refusal we could not record would be lost for good: ask the sender to come back.
      logger?.error({ err: error, reason }, 'could not quarantine a refused callback');
      return retryLater('STORAGE_UNAVAILABLE', 'could not record the refusal; retry later');
    }
    return answer;
  }

  async function fetchUnsigned(request: DeliveryRequest): Promise<DeliveryAnswer> {
    const parsed = parseBody(request.body);
    if (!parsed.ok) return refuse(request, parsed.reason, parsed.message);
    const kind = detectJobKind(parsed.envelope);
    const jobId = claimedJobId(parsed.envelope);
    if (jobId === undefined || !isJobId(jobId) || (kind !== 'job_change' && kind !== 'search_contact')) {
      return refuse(
        request,
        'NO_FINDER',
        kind === 'company_reveal'
          ? 'unsigned company reveal: the interface has no finder to fetch it from'
          : 'unsigned callback whose job has no finder',
        parsed.envelope,
      );
    }
    let fetched: { raw: string; job: unknown };
    try {
      fetched = await deps.fetchFromFinder!(kind, jobId);
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 404) {
        return refuse(
          request,
          'FINDER_REFUSED',
          'unsigned callback for a job the finder does not know',
          parsed.envelope,
        );
      }
      logger?.warn({ err: error, job_id: jobId }, 'finder fetch for an unsigned callback failed');
      return retryLater('FINDER_UNAVAILABLE', 'could not fetch the job from its finder; retry later');
    }
    return commit(fetched.raw, fetched.job, 'finder');
  }

  async function commit(
    text: string,
    envelope: unknown,
    source: 'webhook' | 'finder',
    token?: { jti: string; expiresAt: Date; bodyHash: string },
  ): Promise<DeliveryAnswer> {
    const started = performance.now();
    try {
      const result = await store.store({
        envelopeText: text,
        envelope,
        source,
        // The body hash the verifier checked over these exact bytes is the payload hash.
        ...(token ? { jti: token.jti, tokenExpiresAt: token.expiresAt, payloadHash: token.bodyHash } : {}),
      });
      metrics?.commitSeconds.observe((performance.now() - started) / 1000);
      return {
        status: 200,
        body: { job_id: result.job_id, kind: result.kind, duplicate: result.duplicate },
        outcome: source === 'finder' && !result.duplicate ? 'fetched' : result.outcome,
      };
    } catch (error) {
      const transient = !(error instanceof StorageError) || error.transient;
      logger?.error({ err: error, transient }, 'could not store a verified callback');
      return retryLater('STORAGE_UNAVAILABLE', 'the job could not be stored; retry later');
    }
  }

  async function handle(request: DeliveryRequest): Promise<DeliveryAnswer> {
    if (!isJsonContentType(request.contentType)) {
      return refuse(request, 'UNSUPPORTED_MEDIA_TYPE', 'callbacks must be application/json');
    }
    if (request.signature === undefined || request.signature === '') {
      if (deps.unsigned === 'fetch' && deps.fetchFromFinder) return fetchUnsigned(request);
      const parsed = parseBody(request.body);
      return refuse(
        request,
        'SIGNATURE_MISSING',
        'callback carries no X-Webhook-Signature',
        parsed.ok ? parsed.envelope : undefined,
      );
    }
    const started = performance.now();
    let verified: Awaited<ReturnType<typeof verifyCallback>>;
    try {
      verified = await verifyCallback(
        { body: request.body, signature: request.signature },
        {
          keys: deps.keys,
          ...(deps.now ? { now: deps.now } : {}),
          ...(deps.toleranceSeconds !== undefined ? { toleranceSeconds: deps.toleranceSeconds } : {}),
        },
      );
    } catch (error) {
      if (!(error instanceof SignatureError)) throw error;
      if (error.transient) return retryLater(error.code, error.message);
      return refuse(request, error.code, error.message);
    } finally {
      metrics?.verifySeconds.observe((performance.now() - started) / 1000);
    }
    return commit(verified.text, verified.envelope, 'webhook', {
      jti: verified.jti,
      expiresAt: verified.expiresAt,
      bodyHash: verified.claims.body_hash,
    });
  }

  async function counted(work: () => Promise<DeliveryAnswer>): Promise<DeliveryAnswer> {
    let answer: DeliveryAnswer;
    try {
      answer = await work();
    } catch (error) {
      logger?.error({ err: error }, 'unexpected failure handling a callback');
      answer = retryLater('INTERNAL_ERROR', 'unexpected failure; retry later');
    }
    metrics?.deliveries.inc({ outcome: answer.outcome, reason: answer.reason ?? '' });
    deps.stats?.count(answer.outcome);
    return answer;
  }

  return {
    handle: (request) => counted(() => handle(request)),
    tooLarge: (request, limitBytes) =>
      counted(() => refuse(request, 'BODY_TOO_LARGE', `body is over the limit of ${limitBytes} bytes`)),
  };
}

type ParsedBody =
  | { ok: true; envelope: unknown }
  | { ok: false; reason: Extract<RequestRefusal, 'BODY_NOT_UTF8'> | 'BODY_MALFORMED_JSON'; message: string };

function parseBody(body: Buffer): ParsedBody {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, reason: 'BODY_NOT_UTF8', message: 'body is not UTF-8 text' };
  }
  try {
    return { ok: true, envelope: parseJsonText(text) };
  } catch {
    return { ok: false, reason: 'BODY_MALFORMED_JSON', message: 'body is not valid JSON' };
  }
}

/** The job a refused callback claims to be: from the body when it parses, else the token's unverified claims. */
function claimFrom(request: DeliveryRequest, envelope: unknown): { job_id?: string; kind?: JobKind } {
  let body = envelope;
  if (body === undefined && request.body.length <= 1024 * 1024) {
    const parsed = parseBody(request.body);
    if (parsed.ok) body = parsed.envelope;
  }
  const fromBody = body === undefined ? undefined : claimedJobId(body);
  const fromToken = request.signature ? decodeClaimsUnverified(request.signature)?.job_id : undefined;
  const jobId = [fromBody, fromToken].find((id): id is string => isJobId(id));
  return {
    ...(jobId !== undefined ? { job_id: jobId } : {}),
    ...(body !== undefined ? { kind: detectJobKind(body) } : {}),
  };
}

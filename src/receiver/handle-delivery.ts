/**
 * One webhook delivery, start to end, framework-free: authenticate the token, then read the body, store,
 * answer (issue 15). Used by the receiver's own server and by the express middleware for users' apps.
 * What an unauthenticated request can cost is bounded: a failing token is refused before any body byte is
 * read; an unsigned body is read only up to a prefix, in a small pool of its own; a verified body reserves
 * its memory from a shared budget first and is hashed as it streams in.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { UnsignedPolicy } from '../config/load-config.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../contract/limits.js';
import { WEBHOOK_SIGNATURE_HEADER } from '../contract/webhook-signature.js';
import { StorageError } from '../errors.js';
import type { JobStore, StoreResult } from '../storage/job-store/job-store.js';
import { isExpectedJob, markHintedEntry, storedJobDigest } from '../storage/ledger/ledger-hints.js';
import type { HooksyncDatabase } from '../storage/open-database.js';
import { trimQuarantine } from '../storage/quarantine/trim-quarantine.js';
import type { OpenSpan, Telemetry } from '../telemetry/telemetry.js';
import type { KeySetCache } from '../webhooks/key-set-cache.js';
import { type BodyBudget, createBodyBudget } from './create-body-budget.js';
import type { DeliveryStats } from './create-delivery-stats.js';
import { bodyBudgetReports, type ReceiverMetrics } from './create-metrics.js';
import { createQuarantinePolicy } from './create-quarantine-policy.js';
import { createUnsignedFetcher, type FinderFetch } from './create-unsigned-fetcher.js';
import { type DeliveryAnswer, HINTED_REFUSALS, refusal, retryLater } from './delivery-answer.js';
import { type DeliveryLimits, resolveDeliveryLimits } from './delivery-limits.js';
import type { CommitDelivery, HandlerContext, RefusalToKeep } from './handler-context.js';
import { declaredLength } from './read-body.js';
import { completeSigned, readSignedBody, verifyBeforeBody } from './receive-signed.js';
import { answerUnsigned, readUnsignedPrefix } from './receive-unsigned.js';
import { traceDelivery } from './trace-delivery.js';

export type { FinderFetch } from './create-unsigned-fetcher.js';

/** A delivery already read whole (e.g. by `express.raw()`). */
export interface DeliveryRequest {
  body: Buffer;
  contentType: string | undefined;
  /** The X-Webhook-Signature header, if any. */
  signature: string | undefined;
}

/** What a delivery handler works with. */
export interface DeliveryHandlerDeps {
  keys: KeySetCache;
  store: JobStore;
  /**
   * The database the store writes to: when given, ledger hints, the unsigned-fetch budget, replay checks
   * and the quarantine byte budget use it (the deps below override it one by one).
   */
  database?: Pick<HooksyncDatabase, 'db' | 'dialect'>;
  /** Marks an EXISTING ledger entry for a refused callback whose token verified; never creates one. */
  recordHint?: (hint: { job_id: string }) => Promise<void>;
  /** The stored job's payload hash, to tell a retry (200) from a reused jti (409). */
  storedPayloadHash?: (jobId: string) => Promise<string | undefined>;
  /** HOOKSYNC_UNSIGNED: reject, or fetch the job from its finder. */
  unsigned: UnsignedPolicy;
  /** Needed when `unsigned` is fetch. */
  fetchFromFinder?: FinderFetch;
  /** Sizes, budgets and rates; each has a documented default (delivery-limits.ts). */
  limits?: Partial<DeliveryLimits>;
  /** The memory budget of bodies in flight (default one of `limits.bodyBudgetBytes`): given, others can read it. */
  budget?: BodyBudget;
  now?: () => number;
  /** Clock tolerance for iat/exp, seconds (default 60). */
  toleranceSeconds?: number;
  logger?: Logger;
  metrics?: ReceiverMetrics;
  /** Per-hour outcome counts for the status page. */
  stats?: DeliveryStats;
  /** Tracing (issue 40); absent, the default, no span is made. */
  telemetry?: Telemetry | undefined;
}

/** Answers deliveries. Never throws: every failure becomes an answer. */
export interface DeliveryHandler {
  /** Authenticates, reads, verifies and stores one delivery straight off the request stream. */
  receive(request: IncomingMessage): Promise<DeliveryAnswer>;
  /** The same for a delivery whose body was already read whole. */
  handle(request: DeliveryRequest): Promise<DeliveryAnswer>;
  /** The answer (counted) to a delivery refused because too many are in progress. */
  overloaded(): DeliveryAnswer;
  /** The memory budget of bodies in flight. */
  readonly budget: BodyBudget;
  /** Waits for background work (unsigned fetches, the quarantine trim), at most `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/** Creates the handler. */
export function createDeliveryHandler(deps: DeliveryHandlerDeps): DeliveryHandler {
  const { store, logger, metrics, telemetry } = deps;
  const db = deps.database?.db;
  const now = deps.now ?? Date.now;
  const limits = resolveDeliveryLimits(deps.limits);
  const budget =
    deps.budget ??
    createBodyBudget(
      limits.bodyBudgetBytes,
      bodyBudgetReports(() => metrics),
    );
  let unverified = 0;
  const quarantine = createQuarantinePolicy({
    store,
    ...(deps.database
      ? {
          trim: (budgetBytes: number) => trimQuarantine(deps.database!, budgetBytes),
        }
      : {}),
    now,
    prefixBytes: limits.unsignedPrefixBytes,
    budgetBytes: limits.quarantineBudgetBytes,
    ratePerMinute: limits.quarantineRatePerMinute,
    ...(logger ? { logger } : {}),
    ...(metrics ? { metrics } : {}),
  });
  const recordHint =
    deps.recordHint ??
    (db
      ? async ({ job_id }: { job_id: string }) => {
          await markHintedEntry(db, job_id, new Date(now()));
        }
      : undefined);
  const storedPayloadHash =
    deps.storedPayloadHash ??
    (db ? async (jobId: string) => (await storedJobDigest(db, jobId))?.payloadHash : undefined);

  async function refuse(refused: RefusalToKeep): Promise<DeliveryAnswer> {
    const { message, hintJobId, ...kept } = refused;
    const answer = refusal(refused.reason, message);
    try {
      await quarantine.keep({ ...kept, detail: message });
      if (hintJobId !== undefined && HINTED_REFUSALS.has(refused.reason)) {
        await recordHint?.({ job_id: hintJobId });
      }
    } catch (error) {
      // A refusal we could not record would be lost for good: ask the sender to come back.
      logger?.error({ err: error, reason: refused.reason }, 'could not quarantine a refused callback');
      return retryLater('STORAGE_UNAVAILABLE', 'could not record the refusal; retry later');
    }
    return answer;
  }

  /** The commit of a delivery; traced (`traceParent`), its job's outbox events continue the trace (issue 40). */
  function commitWith(traceParent: string | undefined): CommitDelivery {
    return (text, envelope, source, token) => {
      const started = performance.now();
      let stored: Promise<StoreResult>;
      try {
        stored = store.store({
          envelopeText: text,
          envelope,
          source,
          ...(traceParent !== undefined ? { traceParent } : {}),
          // The body hash the verifier checked over these exact bytes is the payload hash, and the bytes
          // are what is compressed (the text is the same bytes decoded: not encoded again).
          ...(token
            ? {
                jti: token.jti,
                tokenExpiresAt: token.expiresAt,
                payloadHash: token.bodyHash,
                envelopeBytes: token.body,
              }
            : {}),
        });
      } catch (error) {
        stored = Promise.reject(error);
      }
      // Not awaited here: a suspended async function keeps every argument alive, and the text and tree
      // of a page are garbage once the store has taken the job (issue 29). The body's bytes are handed
      // over (serve's store transfers them to its worker, and gives them back for a reused jti).
      return answerStored(stored, started, source, token);
    };
  }
  const commit = commitWith(undefined);

  async function answerStored(
    stored: Promise<StoreResult>,
    started: number,
    source: 'webhook' | 'finder',
    token: { bodyHash: string; body: Uint8Array } | undefined,
  ): Promise<DeliveryAnswer> {
    try {
      const result = await stored;
      metrics?.commitSeconds.observe((performance.now() - started) / 1000);
      if (result.outcome === 'replay' && token) {
        // A 2xx only when this very body is what is stored under the job (issue 19, replays).
        const storedHash = await storedPayloadHash?.(result.job_id);
        if (storedHash !== token.bodyHash) {
          return refuse({
            reason: 'JTI_REUSED',
            message: 'the token jti was already used for another job or body',
            claimedJobId: result.job_id,
            kind: result.kind,
            // serve's store took the bytes to its worker thread and gives them back on a replay.
            body: result.envelopeBytes ?? token.body,
            vouched: true,
          });
        }
      }
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

  const fetcher =
    deps.unsigned === 'fetch' && deps.fetchFromFinder
      ? createUnsignedFetcher({
          fetchFromFinder: deps.fetchFromFinder,
          isExpected: async (jobId) => (db ? isExpectedJob(db, jobId) : false),
          isStored: async (jobId) => (db ? (await storedJobDigest(db, jobId))?.finished === true : false),
          commit: (raw, job) => commit(raw, job, 'finder'),
          now,
          unknownPerMinute: limits.unsignedFetchUnknownPerMinute,
          waitMs: limits.unsignedFetchWaitMs,
          ...(logger ? { logger } : {}),
          ...(metrics ? { metrics } : {}),
        })
      : undefined;

  const ctx: HandlerContext = Object.freeze({
    keys: deps.keys,
    metrics,
    limits,
    budget,
    toleranceSeconds: deps.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    now,
    fetcher,
    refuse,
    commit,
  });

  // The counter's child per outcome and reason, found once (prom-client hashes the labels on every lookup).
  const counters = new Map<string, { inc(): void }>();
  const count = (answer: DeliveryAnswer): DeliveryAnswer => {
    if (metrics) {
      const reason = answer.reason ?? '';
      const key = `${answer.outcome}\u0000${reason}`;
      let counter = counters.get(key);
      if (counter === undefined) {
        counter = metrics.deliveries.labels({ outcome: answer.outcome, reason });
        counters.set(key, counter);
      }
      counter.inc();
    }
    deps.stats?.count(answer.outcome);
    return answer;
  };
  async function counted(work: () => Promise<DeliveryAnswer>): Promise<DeliveryAnswer> {
    try {
      return count(await work());
    } catch (error) {
      logger?.error({ err: error }, 'unexpected failure handling a callback');
      return count({
        ...retryLater('INTERNAL_ERROR', 'unexpected failure; retry later'),
        connection: 'close',
      });
    }
  }
  const overloaded = (): DeliveryAnswer => ({
    ...retryLater('OVERLOADED', 'too many deliveries in progress; retry later'),
    connection: 'close',
  });

  async function receive(request: IncomingMessage, span?: OpenSpan): Promise<DeliveryAnswer> {
    const contentType = request.headers['content-type'];
    const raw = request.headers[WEBHOOK_SIGNATURE_HEADER];
    const signature = Array.isArray(raw) ? raw[0] : raw;
    const declared = declaredLength(request);
    if (signature === undefined || signature === '') {
      // Unsigned bodies are read in a pool of their own, so that they cannot take the genuine callers' slots.
      if (unverified >= limits.maxUnverified) return overloaded();
      unverified++;
      try {
        const read = await readUnsignedPrefix(ctx, request, contentType);
        if ('status' in read) return read;
        return await answerUnsigned(ctx, read.prefix, read.complete, contentType, declared);
      } finally {
        unverified--;
      }
    }
    const checked = await verifyBeforeBody(ctx, signature, contentType, declared);
    // Events on the delivery's span, not spans of their own: three spans a delivery cost too much to export.
    span?.event('verified');
    if ('status' in checked) return { ...checked, connection: 'close' };
    return readSignedBody(tracedContext(span), checked, request, declared);
  }

  /**
   * The context of one traced delivery: its commit carries the delivery's traceparent, so the outbox events
   * continue its trace (passed along, not read from an async context: the hot path pays no async hooks).
   */
  function tracedContext(span: OpenSpan | undefined): HandlerContext {
    const traceParent = span?.traceParent;
    return traceParent === undefined ? ctx : Object.freeze({ ...ctx, commit: commitWith(traceParent) });
  }

  async function handle(request: DeliveryRequest, span?: OpenSpan): Promise<DeliveryAnswer> {
    const { body, contentType, signature } = request;
    if (signature === undefined || signature === '') {
      const prefix = body.subarray(0, limits.unsignedPrefixBytes);
      return answerUnsigned(ctx, prefix, prefix.length === body.length, contentType, body.length);
    }
    const checked = await verifyBeforeBody(ctx, signature, contentType, body.length);
    span?.event('verified');
    if ('status' in checked) return checked;
    return completeSigned(tracedContext(span), checked, body, createHash('sha256').update(body).digest());
  }

  return {
    receive:
      telemetry === undefined
        ? (request) => counted(() => receive(request))
        : (request) =>
            traceDelivery(telemetry, declaredLength(request), (span) =>
              counted(() => receive(request, span)),
            ),
    handle:
      telemetry === undefined
        ? (request) => counted(() => handle(request))
        : (request) =>
            traceDelivery(telemetry, request.body.length, (span) => counted(() => handle(request, span))),
    overloaded: () => count(overloaded()),
    budget,
    async close(graceMs = limits.shutdownGraceMs) {
      await Promise.all([fetcher?.close(graceMs), quarantine.close()]);
    },
  };
}

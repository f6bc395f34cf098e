/**
 * The calls a Salesforce destination makes, over one request core: a session from the grant (renewed once on
 * 401 INVALID_SESSION_ID, then the call replayed), the answer read under a size cap, `Sforce-Limit-Info` read
 * from every answer, the org's allocation checked before every call (`max_share`), retries within the call
 * through the core's p-retry helper with Salesforce's own policy (5xx, network, the concurrent-request limit;
 * no Retry-After exists, so exponential backoff with jitter), and every other answer a CrmError carrying what
 * to do about it. The token only ever goes into the Authorization header.
 */

import type { z } from 'zod';
import { type AnswerLimits, answerCap, reserveAnswer } from '../../client/answer-budget.js';
import { readCappedBody } from '../../client/read-capped-body.js';
import { parseAnswer } from '../../contract/answer-shape.js';
import { boundOutsideText } from '../../contract/outside-text.js';
import { CrmError, ResponseReadError } from '../../errors.js';
import type { CallCounter } from '../crm/crm-counters.js';
import { sendFailure } from '../crm/crm-http.js';
import { type CrmRetryPolicy, policyFor, withCrmRetries } from '../crm/crm-retry.js';
import { type ApiUsage, allocationAllows, parseLimitInfo } from './limit-info.js';
import { classifyTrouble, TOTAL_REQUESTS_PROBE_MS } from './salesforce-answer.js';
import type { SalesforceAuth } from './salesforce-auth.js';

/** Bytes of one answer read at most: a 2,000-row query page of wide records stays far below. */
export const DEFAULT_ANSWER_MAX_BYTES = 16 * 1024 * 1024;

/** Whether a failed call is worth another try now: trouble that may pass, on an answer that was not a malformed 2xx. */
function retryable(error: CrmError): boolean {
  if (error.trouble.kind !== 'retry') return false;
  // A malformed or oversized answer is a failed attempt, never a retry loop (design.md).
  if (error.cause instanceof ResponseReadError && error.cause.code !== 'NETWORK_ERROR') return false;
  return error.status === null || error.status >= 300;
}

/** Salesforce's retry policy (aiosalesforce's default: 3 retries, 0.5 s doubling to 10 s, jitter). */
export function salesforceRetryPolicy(
  options: { retries?: number; minDelayMs?: number; maxDelayMs?: number; random?: () => number } = {},
): CrmRetryPolicy {
  const retries = options.retries ?? 3;
  const min = options.minDelayMs ?? 500;
  const max = options.maxDelayMs ?? 10_000;
  const random = options.random ?? Math.random;
  return {
    retries,
    shouldRetry: (error) => retryable(error),
    delayMs: (_error, attempt) => Math.min(max, min * 2 ** (attempt - 1)) * (0.5 + random() / 2),
  };
}

/** The org's allocation as this destination last read it. */
export interface AllocationState {
  usage: ApiUsage | undefined;
  /** When it was read (epoch ms). */
  at: number | undefined;
}

/** Collaborators and settings of the client. */
export interface SalesforceClientConfig {
  readonly auth: SalesforceAuth;
  /** `62.0`. */
  readonly apiVersion: string;
  /** Share of the org's allocation this destination may use. */
  readonly maxShare: number;
  /** Where the credentials come from, for a 401's pause message. */
  readonly credentials: string;
  readonly fetch: typeof globalThis.fetch;
  readonly now: () => number;
  readonly counter: CallCounter;
  readonly retry?: CrmRetryPolicy;
  readonly maxAnswerBytes?: number;
  /** serve's answer budget and the plan's cap on one answer (lowers `maxAnswerBytes`); none: the cap alone. */
  readonly answers?: AnswerLimits | undefined;
}

/** One request: a JSON body, or CSV text (Bulk uploads). */
export interface SalesforceRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** `/services/data/...` as is, or a path under `/services/data/vXX.X/`. */
  readonly path: string;
  readonly json?: unknown;
  readonly csv?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The longest array the answer may hold (a query page's 2,000 records); default the shape check's own. */
  readonly maxItems?: number;
}

/** A successful answer. */
export interface SalesforceAnswer {
  readonly status: number;
  readonly text: string;
}

/** A counted, allocation-aware Salesforce client. */
export interface SalesforceClient {
  /** The answer of a 2xx; throws CrmError otherwise. */
  request(request: SalesforceRequest, signal: AbortSignal): Promise<SalesforceAnswer>;
  /** A 2xx's JSON checked against `schema`; an answer of another shape is a failed attempt. */
  json<S extends z.ZodType>(schema: S, request: SalesforceRequest, signal: AbortSignal): Promise<z.output<S>>;
  /** The path prefix of this API version: `/services/data/v62.0`. */
  readonly base: string;
  /** The allocation as last read. */
  readonly allocation: AllocationState;
}

/** Creates the client. */
export function createSalesforceClient(config: SalesforceClientConfig): SalesforceClient {
  const base = `/services/data/v${config.apiVersion}`;
  const policy = config.retry ?? salesforceRetryPolicy();
  const allocation: AllocationState = { usage: undefined, at: undefined };
  const maxBytes = answerCap(config.maxAnswerBytes ?? DEFAULT_ANSWER_MAX_BYTES, config.answers);

  const attempt = async (request: SalesforceRequest, signal: AbortSignal): Promise<SalesforceAnswer> => {
    // A reading older than the probe interval holds nothing back: this call is the probe that reads it anew.
    const fresh = allocation.at !== undefined && config.now() - allocation.at < TOTAL_REQUESTS_PROBE_MS;
    if (fresh && !allocationAllows(allocation.usage, config.maxShare)) {
      const { used, max } = allocation.usage!;
      config.counter.rateLimited('max_share');
      throw new CrmError(null, {
        kind: 'wait',
        policy: 'max_share',
        error: `the org has used ${used} of ${max} API calls in the last 24 h and this destination may use ${Math.round(config.maxShare * 100)}% (max_share)`,
        waitMs: TOTAL_REQUESTS_PROBE_MS,
      });
    }
    let session = await config.auth.session(signal);
    const path = request.path.startsWith('/services/')
      ? request.path
      : `${base}/${request.path.replace(/^\/+/, '')}`;
    const what = `${request.method} ${path.split('?')[0]}`;
    for (let regranted = false; ; regranted = true) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${session.accessToken}`,
        accept: 'application/json',
        'user-agent': 'hooksync-destinations',
        ...request.headers,
      };
      if (request.json !== undefined) headers['content-type'] = 'application/json';
      if (request.csv !== undefined) headers['content-type'] = 'text/csv';
      let response: Response | undefined;
      let text: string;
      // Held in serve's answer budget from before the body is read until it is text (and again in `json`).
      let release: (() => void) | undefined;
      try {
        config.counter.call();
        response = await config.fetch(`${session.instanceUrl}${path}`, {
          method: request.method,
          headers,
          ...(request.json !== undefined ? { body: JSON.stringify(request.json) } : {}),
          ...(request.csv !== undefined ? { body: request.csv } : {}),
          redirect: 'manual',
          signal,
        });
        const usage = parseLimitInfo(response.headers.get('sforce-limit-info'));
        if (usage !== undefined) {
          allocation.usage = usage;
          allocation.at = config.now();
          config.counter.dailyRemaining(usage.max - usage.used);
        }
        release = await reserveAnswer(
          config.answers,
          response.headers.get('content-length'),
          maxBytes,
          signal,
        );
        text = new TextDecoder().decode(
          await readCappedBody(response, { maxBytes, signal, what: `Salesforce's answer to ${what}` }),
        );
      } catch (error) {
        response?.body?.cancel().catch(() => undefined);
        throw sendFailure(error, signal, what);
      } finally {
        release?.();
      }
      if (response.status === 401 && !regranted) {
        // No refresh token, no expiry: a refused session is renewed once by the grant, then replayed (§4).
        session = await config.auth.renew(session, signal);
        continue;
      }
      if (response.status >= 200 && response.status < 300) return { status: response.status, text };
      throw new CrmError(
        response.status,
        classifyTrouble({ status: response.status, text, credentials: config.credentials }),
      );
    }
  };

  const request = (req: SalesforceRequest, signal: AbortSignal) =>
    withCrmRetries(policyFor(policy, req.method), signal, () => attempt(req, signal));

  return {
    base,
    allocation,
    request,
    async json(schema, req, signal) {
      const answer = await request(req, signal);
      // Held in serve's answer budget again while parsed (its text is at most the cap: a character a byte or more).
      const release = await config.answers?.budget.acquire(answer.text.length, signal);
      let parsed: ReturnType<typeof parseAnswer<typeof schema>>;
      try {
        let value: unknown;
        try {
          value = answer.text === '' ? undefined : JSON.parse(answer.text);
        } catch {
          value = Symbol('not JSON');
        }
        // Bounded work whatever the body (contract/answer-shape.ts), a query page held to its 2,000 records.
        parsed = parseAnswer(schema, value, req.maxItems);
      } finally {
        release?.();
      }
      if (!parsed.ok) {
        throw new CrmError(answer.status, {
          kind: 'retry',
          error: `${req.method} ${req.path.split('?')[0]}: the answer is not the shape Salesforce documents (${boundOutsideText(parsed.problem, 200)})`,
        });
      }
      return parsed.data;
    },
  };
}

/**
 * The calls a Salesforce destination makes, through the CRM core's HTTP client (`crm/crm-http.ts`): a session
 * from the grant (renewed once on 401 INVALID_SESSION_ID, then the call replayed), the answer read under a
 * size cap and serve's answer budget, `Sforce-Limit-Info` read from every answer, the org's allocation checked
 * before every try (`max_share`), retries within the call with Salesforce's own policy (5xx, network, the
 * concurrent-request limit; no Retry-After exists, so exponential backoff with jitter), and every other answer
 * a CrmError carrying what to do about it. The token only ever goes into the Authorization header.
 */

import type { z } from 'zod';
import type { AnswerLimits } from '../../client/answer-budget.js';
import { CrmError, ResponseReadError } from '../../errors.js';
import type { CallCounter } from '../crm/crm-counters.js';
import { type CrmCall, createCrmHttp } from '../crm/crm-http.js';
import type { CrmRetryPolicy } from '../crm/crm-retry.js';
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
  /** The answer of a 2xx as text; throws CrmError otherwise. */
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
  const allocation: AllocationState = { usage: undefined, at: undefined };
  const http = createCrmHttp({
    crm: 'Salesforce',
    sessions: config.auth,
    fetch: config.fetch,
    now: config.now,
    admit() {
      // A reading older than the probe interval holds nothing back: this call is the probe that reads it anew.
      const fresh = allocation.at !== undefined && config.now() - allocation.at < TOTAL_REQUESTS_PROBE_MS;
      if (!fresh || allocationAllows(allocation.usage, config.maxShare)) return;
      const { used, max } = allocation.usage!;
      config.counter.rateLimited('max_share');
      throw new CrmError(null, {
        kind: 'wait',
        policy: 'max_share',
        error: `the org has used ${used} of ${max} API calls in the last 24 h and this destination may use ${Math.round(config.maxShare * 100)}% (max_share)`,
        waitMs: TOTAL_REQUESTS_PROBE_MS,
      });
    },
    counter: config.counter,
    retry: config.retry ?? salesforceRetryPolicy(),
    classify: (answer) =>
      classifyTrouble({ status: answer.status, text: answer.text, credentials: config.credentials }),
    onHeaders(headers) {
      const usage = parseLimitInfo(headers.get('sforce-limit-info'));
      if (usage === undefined) return;
      allocation.usage = usage;
      allocation.at = config.now();
      config.counter.dailyRemaining(usage.max - usage.used);
    },
    nameCalls: true,
    maxAnswerBytes: config.maxAnswerBytes ?? DEFAULT_ANSWER_MAX_BYTES,
    answers: config.answers,
  });
  const callOf = (request: SalesforceRequest): CrmCall => ({
    method: request.method,
    path: request.path.startsWith('/services/')
      ? request.path
      : `${base}/${request.path.replace(/^\/+/, '')}`,
    json: request.json,
    text: request.csv === undefined ? undefined : { body: request.csv, type: 'text/csv' },
    headers: request.headers,
    maxItems: request.maxItems,
  });
  return {
    base,
    allocation,
    request: (request, signal) => http.text(callOf(request), signal),
    json: (schema, request, signal) => http.json(schema, callOf(request), signal),
  };
}

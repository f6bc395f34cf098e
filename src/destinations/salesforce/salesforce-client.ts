/**
 * The calls a Salesforce destination makes, over one request core: a session from the grant (renewed once on
 * 401 INVALID_SESSION_ID, then replayed), the answer read under a size cap, `Sforce-Limit-Info` read from every
 * answer, the org's allocation checked before every call (`max_share`), retries within the call through p-retry
 * with the client's own policy (5xx, network, the concurrent-request limit), and every other answer turned
 * into a SalesforceError carrying what to do about it. The token only ever goes into the Authorization header.
 */
import pRetry from 'p-retry';
import type { z } from 'zod';
import { readCappedBody } from '../../client/read-capped-body.js';
import { type ApiUsage, allocationAllows, parseLimitInfo } from './limit-info.js';
import { classifyTrouble, SalesforceError, TOTAL_REQUESTS_PROBE_MS } from './salesforce-answer.js';
import type { SalesforceAuth } from './salesforce-auth.js';

/** Bytes of one answer read at most: a 2,000-row query page of wide records stays far below. */
export const DEFAULT_ANSWER_MAX_BYTES = 16 * 1024 * 1024;

/** How the client retries within one call: Salesforce gives no Retry-After, so exponential backoff with jitter. */
export interface SalesforceRetryPolicy {
  /** Retries after the first attempt (default 3, as aiosalesforce's default policy). */
  readonly retries: number;
  /** First wait in ms (default 500), doubled each retry... */
  readonly minTimeoutMs: number;
  /** ...up to this (default 10,000). */
  readonly maxTimeoutMs: number;
}

/** The defaults of {@link SalesforceRetryPolicy}. */
export const DEFAULT_SALESFORCE_RETRY: SalesforceRetryPolicy = Object.freeze({
  retries: 3,
  minTimeoutMs: 500,
  maxTimeoutMs: 10_000,
});

/** What the calls came to since the destination started (for metrics and `destinations list`). */
export interface SalesforceCallStats {
  calls: number;
  /** The last `Sforce-Limit-Info` read, and when. */
  usage: ApiUsage | undefined;
  usageAt: number | undefined;
  /** Calls the allocation rule held back. */
  heldBack: number;
}

/** A new, empty stats object. */
export function createCallStats(): SalesforceCallStats {
  return { calls: 0, usage: undefined, usageAt: undefined, heldBack: 0 };
}

/** Collaborators and settings of the client. */
export interface SalesforceClientConfig {
  readonly auth: SalesforceAuth;
  /** `62.0`. */
  readonly apiVersion: string;
  /** Share of the org's allocation this destination may use (default 0.5). */
  readonly maxShare: number;
  /** Where the credentials come from, for a 401's pause message. */
  readonly credentials: string;
  readonly fetch: typeof globalThis.fetch;
  readonly now: () => number;
  readonly stats: SalesforceCallStats;
  readonly retry?: SalesforceRetryPolicy;
  readonly maxAnswerBytes?: number;
}

/** One request: a JSON body, or CSV text (Bulk uploads). */
export interface SalesforceRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** `/services/data/...` as is, or a path under `/services/data/vXX.X/`. */
  readonly path: string;
  readonly json?: unknown;
  readonly csv?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A successful answer. */
export interface SalesforceAnswer {
  readonly status: number;
  readonly text: string;
}

/** A paced, counted Salesforce client. */
export interface SalesforceClient {
  /** The answer of a 2xx; throws SalesforceError otherwise. */
  request(request: SalesforceRequest, signal: AbortSignal): Promise<SalesforceAnswer>;
  /** A 2xx's JSON checked against `schema`; an answer of another shape is a failed attempt. */
  json<S extends z.ZodType>(schema: S, request: SalesforceRequest, signal: AbortSignal): Promise<z.output<S>>;
  /** The path prefix of this API version: `/services/data/v62.0`. */
  readonly base: string;
}

/** Creates the client. */
export function createSalesforceClient(config: SalesforceClientConfig): SalesforceClient {
  const base = `/services/data/v${config.apiVersion}`;
  const policy = config.retry ?? DEFAULT_SALESFORCE_RETRY;
  const { stats } = config;

  const attempt = async (request: SalesforceRequest, signal: AbortSignal): Promise<SalesforceAnswer> => {
    // Usage older than the probe interval no longer holds a call back: that call is the probe that reads it anew.
    const fresh = stats.usageAt !== undefined && config.now() - stats.usageAt < TOTAL_REQUESTS_PROBE_MS;
    if (fresh && !allocationAllows(stats.usage, config.maxShare)) {
      stats.heldBack += 1;
      throw new SalesforceError(null, {
        kind: 'wait',
        error: `the org has used ${stats.usage!.used} of ${stats.usage!.max} API calls in the last 24 h; this destination may use ${Math.round(config.maxShare * 100)}% (max_share), so it waits for the rolling window to free calls`,
        waitMs: TOTAL_REQUESTS_PROBE_MS,
      });
    }
    let session = await config.auth.session(signal);
    for (let regranted = false; ; regranted = true) {
      const path = request.path.startsWith('/services/')
        ? request.path
        : `${base}/${request.path.replace(/^\/+/, '')}`;
      const headers: Record<string, string> = {
        authorization: `Bearer ${session.accessToken}`,
        accept: request.csv === undefined ? 'application/json' : 'application/json, text/csv',
        'user-agent': 'hooksync-destinations',
        ...request.headers,
      };
      if (request.json !== undefined) headers['content-type'] = 'application/json';
      if (request.csv !== undefined) headers['content-type'] = 'text/csv';
      let response: Response;
      try {
        stats.calls += 1;
        response = await config.fetch(`${session.instanceUrl}${path}`, {
          method: request.method,
          headers,
          ...(request.json !== undefined ? { body: JSON.stringify(request.json) } : {}),
          ...(request.csv !== undefined ? { body: request.csv } : {}),
          redirect: 'manual',
          signal,
        });
      } catch (error) {
        const code = (error as { cause?: { code?: unknown } }).cause?.code;
        const what = signal.aborted
          ? 'timed out'
          : `network error${typeof code === 'string' ? ` (${code})` : ''}`;
        throw new SalesforceError(null, { kind: 'retry', error: `${request.method} ${path}: ${what}` });
      }
      const usage = parseLimitInfo(response.headers.get('sforce-limit-info'));
      if (usage !== undefined) {
        stats.usage = usage;
        stats.usageAt = config.now();
      }
      let text: string;
      try {
        const bytes = await readCappedBody(response, {
          maxBytes: config.maxAnswerBytes ?? DEFAULT_ANSWER_MAX_BYTES,
          signal,
          what: `${request.method} ${path}`,
        });
        text = new TextDecoder().decode(bytes);
      } catch (error) {
        if (signal.aborted)
          throw new SalesforceError(null, { kind: 'retry', error: `${request.method} ${path}: timed out` });
        throw new SalesforceError(
          response.status,
          { kind: 'retry', error: (error as Error).message },
          { malformed: true },
        );
      }
      if (response.status === 401 && !regranted) {
        // No refresh token, no expiry: a refused session is renewed once by the grant, then the call replayed (§4).
        session = await config.auth.renew(session, signal);
        continue;
      }
      if (response.status >= 200 && response.status < 300) return { status: response.status, text };
      throw new SalesforceError(
        response.status,
        classifyTrouble({ status: response.status, text, credentials: config.credentials }),
      );
    }
  };

  const request = (req: SalesforceRequest, signal: AbortSignal) =>
    pRetry(() => attempt(req, signal), {
      retries: policy.retries,
      minTimeout: policy.minTimeoutMs,
      maxTimeout: policy.maxTimeoutMs,
      factor: 2,
      randomize: true,
      signal,
      shouldRetry: ({ error }) =>
        error instanceof SalesforceError && error.trouble.kind === 'retry' && !error.malformed,
    });

  return {
    base,
    request,
    async json(schema, req, signal) {
      const answer = await request(req, signal);
      let value: unknown;
      try {
        value = answer.text === '' ? undefined : JSON.parse(answer.text);
      } catch {
        value = Symbol('not JSON');
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        throw new SalesforceError(
          answer.status,
          {
            kind: 'retry',
            error: `${req.method} ${req.path}: the answer is not the shape Salesforce documents`,
          },
          { malformed: true },
        );
      }
      return parsed.data;
    },
  };
}

/**
 * The one place the client talks HTTP: pacing, per-attempt timeout, the caller's AbortSignal, retries
 * and the mapping of every failure to a ServiceError. Resources build on `request()`.
 */
import type { Logger } from 'pino';
import type { RateLimit } from '../contract/rate-limit.js';
import { readRateLimitHeaders } from '../contract/rate-limit.js';
import { ResponseReadError, ServiceError } from '../errors.js';
import type { AnswerBudget } from './answer-budget.js';
import { parseErrorResponse } from './error-response.js';
import type { Pacer } from './pacer.js';
import { readCappedBody } from './read-capped-body.js';
import { createServiceRetryPolicy, type ServiceRetryConfig } from './retry-policy.js';
import { retryWithPolicy } from './retry-with-policy.js';

/** Collaborators and settings of the core, resolved by createClient. */
export interface RequestCoreDeps {
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly fetch: typeof fetch;
  readonly logger: Logger;
  readonly timeoutMs: number;
  /** Largest answer read, error answers included; a larger one fails RESPONSE_TOO_LARGE, not retried. */
  readonly maxResponseBytes: number;
  /** Answer bytes in flight, shared by every call: reserved before a body is read, given back once parsed. */
  readonly answers: AnswerBudget;
  readonly userAgent: string;
  readonly retry: ServiceRetryConfig;
  readonly pacer: Pacer;
  readonly redact: (text: string) => string;
  /** Called with the rate a response's X-RateLimit-Limit / X-RateLimit-Interval headers announce. */
  readonly onRateLimitHeaders: (limit: RateLimit) => void;
}

/** One call to the service. */
export interface ServiceRequest {
  readonly method: 'GET' | 'POST';
  /** Path from the base URL, with its leading slash and any query string. */
  readonly path: string;
  /** JSON text to send. */
  readonly body?: string;
  /** Send x-api-key (every endpoint but the key set). */
  readonly auth: boolean;
  /** Spend a pacing token on each attempt. */
  readonly paced: boolean;
  readonly signal?: AbortSignal | undefined;
}

/** A 2xx answer, body kept exactly as received. */
export interface ServiceResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The body bytes as they came off the wire. */
  readonly bytes: Uint8Array;
  /** The same bytes decoded as UTF-8, nothing dropped (a BOM stays). */
  readonly text: string;
}

/**
 * Sends a request, retrying what can succeed on retry; resolves with `parse` of the 2xx answer (default the
 * answer itself), parsed while its bytes are still counted in the answer budget. Rejects with a ServiceError
 * (a ServiceError thrown by `parse` included, retried by the same policy) or the caller's abort reason.
 */
export type RequestCore = <T = ServiceResponse>(
  request: ServiceRequest,
  parse?: (response: ServiceResponse) => T,
) => Promise<T>;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** Builds the request function shared by every resource of one client. */
export function createRequestCore(deps: RequestCoreDeps): RequestCore {
  const { logger, pacer, redact } = deps;
  const rateWindowMs = (): number => Math.max(...pacer.limits.map((l) => l.intervalSeconds * 1000));
  const policy = createServiceRetryPolicy(deps.retry, rateWindowMs);

  return async function request<T = ServiceResponse>(
    req: ServiceRequest,
    parse?: (response: ServiceResponse) => T,
  ): Promise<T> {
    const what = `${req.method} ${req.path.split('?')[0]}`;
    const url = `${deps.baseUrl}${req.path}`;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': deps.userAgent };
    if (req.auth) headers['x-api-key'] = deps.apiKey;
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const { signal } = req;

    // An attempt resolves with a 2xx or throws: a ServiceError that the policy retries or not, or
    // anything else (the caller's abort, a bug), which ends the call.
    const attempt = async (attemptNumber: number): Promise<T> => {
      const held: { release?: () => void } = {};
      try {
        return await attemptOnce(attemptNumber, held);
      } finally {
        held.release?.();
      }
    };
    const attemptOnce = async (attemptNumber: number, held: { release?: () => void }): Promise<T> => {
      const permit = req.paced ? await pacer.acquire(signal) : undefined;
      const timeout = AbortSignal.timeout(deps.timeoutMs);
      const attemptStartedMs = Date.now();
      let response: Response | undefined;
      let bytes: Uint8Array;
      try {
        const attemptSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
        response = await deps.fetch(url, {
          method: req.method,
          headers,
          body: req.body,
          signal: attemptSignal,
          // A redirect would carry x-api-key to wherever it points: treat it as an answer instead.
          redirect: 'manual',
        });
        // The answer's bytes are counted before they are read (its declared length, else the cap; nothing
        // for one the reader refuses unread), and given back by `attempt` once parsed.
        const declared = Number(response.headers.get('content-length') ?? Number.NaN);
        const expected = Number.isSafeInteger(declared) && declared >= 0 ? declared : deps.maxResponseBytes;
        held.release = await deps.answers.acquire(
          expected > deps.maxResponseBytes ? 0 : expected,
          attemptSignal,
        );
        // The attempt's timeout covers the body too: a slow answer cannot hold the call past it.
        bytes = await readCappedBody(response, {
          maxBytes: deps.maxResponseBytes,
          signal: attemptSignal,
          what,
        });
      } catch (error) {
        // An answer never read (the wait for the answer budget was cut short) must not hold its connection.
        response?.body?.cancel().catch(() => undefined);
        if (error instanceof ResponseReadError && error.code === 'RESPONSE_TOO_LARGE') {
          // The same request would get the same answer: not retried, and nothing more is downloaded.
          logger.warn(
            { what, status: response?.status, maxBytes: error.maxBytes },
            'service answer over the size cap',
          );
          throw new ServiceError({
            status: response?.status ?? 0,
            code: 'RESPONSE_TOO_LARGE',
            message: error.message,
            cause: error,
          });
        }
        if (signal?.aborted) throw error;
        // fetch reports a network failure as a TypeError; as a ServiceError with status 0 it follows the
        // retry policy like any other failure.
        const timedOut = timeout.aborted;
        logger.debug({ what, attempt: attemptNumber, timedOut }, 'service call failed without an answer');
        throw new ServiceError({
          status: 0,
          code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
          message: timedOut
            ? `${what} got no complete answer within ${deps.timeoutMs} ms`
            : `${what} failed: ${redact(describeFailure(error))}`,
          cause: error,
        });
      } finally {
        // The token returns one interval after the request is over, answered or not (see pacer.ts).
        permit?.release();
      }
      logger.debug(
        { what, attempt: attemptNumber, status: response.status, durationMs: Date.now() - attemptStartedMs },
        'service call',
      );
      const text = decodeUtf8(bytes);
      if (req.paced) {
        // The headers come with the answer that reached the limit (Limits part): they state the key's rate.
        const { limit, intervalSeconds } = readRateLimitHeaders((name) => response.headers.get(name));
        if (limit !== undefined && limit >= 1 && intervalSeconds !== undefined && intervalSeconds > 0) {
          deps.onRateLimitHeaders({ perInterval: Math.floor(limit), intervalSeconds });
        }
      }
      if (response.status >= 200 && response.status < 300) {
        if (text === undefined) {
          throw new ServiceError({
            status: response.status,
            code: 'RESPONSE_MALFORMED',
            message: `${what} answered with a body that is not UTF-8`,
          });
        }
        const answer: ServiceResponse = { status: response.status, headers: response.headers, bytes, text };
        return parse === undefined ? (answer as T) : parse(answer);
      }
      const error = parseErrorResponse({
        status: response.status,
        text,
        retryAfter: response.headers.get('retry-after'),
        what,
        nowMs: Date.now(),
        redact,
      });
      if (response.status === 429 && req.paced) {
        // Drain the shared bucket: every caller waits for the window to reset, not only this one.
        pacer.noteRateLimited(
          error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000,
        );
      }
      throw error;
    };

    return retryWithPolicy(attempt, policy, {
      signal,
      onRetry: (error, delayMs, retry) => {
        const { code, status } = error as ServiceError;
        logger.warn({ what, code, status, delayMs, retry }, 'retrying service call');
      },
      onBudgetSpent: (error, delayMs) => {
        const { code, status } = error as ServiceError;
        logger.warn({ what, code, status, nextDelayMs: delayMs }, 'retry budget spent');
      },
    });
  };
}

/**
 * The typed client for the data service: `createClient({ baseUrl, apiKey })`. One request core (pacing,
 * retries, timeouts, error mapping) under one object per resource.
 */
import { type Logger, pino } from 'pino';
import { canParseUrl } from '../contract/formats.js';
import { DEFAULT_RATE_LIMIT } from '../contract/limits.js';
import { assertRateLimit, type RateLimit } from '../contract/rate-limit.js';
import { ServiceError } from '../errors.js';
import { AnswerBudget, DEFAULT_ANSWER_BUDGET_BYTES } from './answer-budget.js';
import { type ApiKeysResource, createApiKeysResource } from './api-keys-resource.js';
import type { CallOptions } from './call-options.js';
import { type CompanyRevealMethod, createCompanyReveal } from './company-reveal.js';
import {
  createJobChangeResource,
  DEFAULT_JOB_CHANGE_LAUNCH_PATH,
  type JobChangeResource,
} from './job-change.js';
import { createJwksMethod, type JwksMethod } from './jwks.js';
import { Pacer, type PacingStats } from './pacer.js';
import { combineRateLimits, type LearnedRateLimit, pickKeyRate } from './rate-limit-learning.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './read-capped-body.js';
import { createRedactor } from './redact-secret.js';
import { createRequestCore } from './request-core.js';
import {
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_MIN_BACKOFF_MS,
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BUDGET_MS,
} from './retry-policy.js';
import {
  createSearchContactResource,
  DEFAULT_SEARCH_CONTACT_LAUNCH_PATH,
  type SearchContactResource,
} from './search-contact.js';

/** Per-attempt limit on a request, answer body included. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Sent as User-Agent unless `userAgent` says otherwise. */
export const DEFAULT_USER_AGENT = 'hooksync';

/**
 * Which calls spend pacing tokens: `'v1'` (default) the Search Contact and Job Change calls and the key
 * list; `'rate-limited'` only the Search Contact and Job Change calls, the ones the Limits part names.
 * Company Reveal is not in that list and is never paced (a 429 on it is still retried after Retry-After);
 * neither is the key set.
 */
export type PacingScope = 'v1' | 'rate-limited';

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The service's base URL (http or https), e.g. `https://api.example.com`; a path prefix is kept. */
  baseUrl: string;
  /** Sent as x-api-key; never logged, scrubbed from every error message. */
  apiKey: string;
  /** Default the global fetch. */
  fetch?: typeof fetch;
  /** Default silent. */
  logger?: Logger;
  /** Per attempt, answer body included (default 30 000 ms). */
  timeoutMs?: number;
  /**
   * Largest answer read, in bytes (default 4 MiB: a 250-person page is about 1 MiB); a larger one fails
   * RESPONSE_TOO_LARGE at once, not retried.
   */
  maxResponseBytes?: number;
  /**
   * Answer bytes in flight across this client's concurrent calls (default 16 MiB; at least
   * `maxResponseBytes`): a call whose answer would pass it waits before reading. Ignored with `answerBudget`.
   */
  answerBudgetBytes?: number;
  /** A budget shared with other clients (one process, one budget); default: the client's own. */
  answerBudget?: AnswerBudget;
  /** Retries after the first attempt (default 5). */
  retries?: number;
  /** No retry wait may end later than this after the call began (default 300 000 ms). */
  retryBudgetMs?: number;
  /** First backoff step for 5xx and network failures (default 500 ms), doubling up to `maxBackoffMs` (30 000). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Uniform in [0, 1) for backoff jitter (default `Math.random`). */
  random?: () => number;
  /** The pacing ceiling (default 50 per 60 s, the account's rate). */
  rateLimit?: RateLimit;
  /** Default `'v1'`. */
  pacingScope?: PacingScope;
  /** Launcher paths the interface does not show (defaults: the simulator's). */
  paths?: { searchContactLaunch?: string; jobChangeLaunch?: string };
  /** Default `hooksync`. */
  userAgent?: string;
}

/** A client of the data service. Every method rejects with ServiceError, or ValidationError before sending. */
export interface Client {
  /** Company Reveal Launcher. */
  readonly companyReveal: CompanyRevealMethod;
  readonly jobChange: JobChangeResource;
  readonly searchContact: SearchContactResource;
  readonly apiKeys: ApiKeysResource;
  /** The webhook verification key set (no x-api-key, not paced). */
  readonly jwks: JwksMethod;
  /** Replaces the pacing ceiling and forgets any learned rate. */
  setRateLimit(limit: RateLimit): void;
  /**
   * Lists the keys and paces by the current key's per_interval / interval_seconds together with the
   * ceiling. A key that may not list keys (AUTH_NEED_MASTER_API_KEY, PERMISSION_*) leaves pacing unchanged.
   */
  learnRateLimit(options?: CallOptions): Promise<LearnedRateLimit>;
  /** Counters of the shared pacing budget and the rates in force. */
  readonly pacing: PacingStats;
}

function requirePositive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new TypeError(`${name} must be a positive number, got ${String(value)}`);
  }
  return value;
}

function parseBaseUrl(value: unknown): string {
  if (typeof value !== 'string' || !canParseUrl(value)) {
    throw new TypeError('baseUrl must be an absolute URL');
  }
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('baseUrl must be http or https');
  }
  // fetch refuses such a URL on every attempt; say so once, without printing the credentials.
  if (url.username !== '' || url.password !== '') {
    throw new TypeError('baseUrl must not hold a user name or password');
  }
  return value.replace(/\/+$/, '');
}

function requirePath(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !value.startsWith('/')) throw new TypeError(`${name} must start with "/"`);
  return value;
}

/** Creates a client; throws TypeError for a missing or malformed option. */
export function createClient(options: ClientOptions): Client {
  const baseUrl = parseBaseUrl(options.baseUrl);
  if (typeof options.apiKey !== 'string' || options.apiKey === '') {
    throw new TypeError('apiKey must be a non-empty string');
  }
  const retries = options.retries ?? DEFAULT_RETRIES;
  if (!Number.isSafeInteger(retries) || retries < 0) {
    throw new TypeError('retries must be a non-negative integer');
  }
  let ceiling: RateLimit = { ...(options.rateLimit ?? DEFAULT_RATE_LIMIT) };
  assertRateLimit(ceiling);

  const logger = options.logger ?? pino({ level: 'silent' });
  // Pacing and retry waits run on Date.now and global timers (p-retry's way): tests fake those.
  const pacer = new Pacer({
    limits: [ceiling],
    onWait: (waitMs) => logger.debug({ waitMs }, 'waiting for a pacing token'),
  });
  // A learned rate is obeyed together with the ceiling, never instead of it.
  const adopt = (learned: RateLimit): void => {
    const next = combineRateLimits(ceiling, learned);
    if (JSON.stringify(next) !== JSON.stringify(pacer.limits)) {
      pacer.setLimits(next);
      logger.info({ limits: next }, 'pacing adjusted');
    }
  };

  const maxResponseBytes = requirePositive(
    'maxResponseBytes',
    options.maxResponseBytes,
    DEFAULT_MAX_RESPONSE_BYTES,
  );
  const answerBudgetBytes = requirePositive(
    'answerBudgetBytes',
    options.answerBudgetBytes,
    Math.max(DEFAULT_ANSWER_BUDGET_BYTES, maxResponseBytes),
  );
  if (answerBudgetBytes < maxResponseBytes) {
    throw new TypeError('answerBudgetBytes must be at least maxResponseBytes');
  }
  const request = createRequestCore({
    baseUrl,
    apiKey: options.apiKey,
    fetch: options.fetch ?? globalThis.fetch,
    logger,
    timeoutMs: requirePositive('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS),
    maxResponseBytes,
    answers: options.answerBudget ?? new AnswerBudget(Math.floor(answerBudgetBytes)),
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    retry: {
      retries,
      retryBudgetMs: requirePositive('retryBudgetMs', options.retryBudgetMs, DEFAULT_RETRY_BUDGET_MS),
      minBackoffMs: requirePositive('minBackoffMs', options.minBackoffMs, DEFAULT_MIN_BACKOFF_MS),
      maxBackoffMs: requirePositive('maxBackoffMs', options.maxBackoffMs, DEFAULT_MAX_BACKOFF_MS),
      random: options.random ?? Math.random,
    },
    pacer,
    redact: createRedactor(options.apiKey),
    onRateLimitHeaders: adopt,
  });

  const paceAllV1 = (options.pacingScope ?? 'v1') === 'v1';
  const apiKeys = createApiKeysResource({ request, paced: paceAllV1 });

  return {
    companyReveal: createCompanyReveal({ request, paced: false }),
    jobChange: createJobChangeResource({
      request,
      paced: true,
      launchPath: requirePath(
        'paths.jobChangeLaunch',
        options.paths?.jobChangeLaunch,
        DEFAULT_JOB_CHANGE_LAUNCH_PATH,
      ),
    }),
    searchContact: createSearchContactResource({
      request,
      paced: true,
      launchPath: requirePath(
        'paths.searchContactLaunch',
        options.paths?.searchContactLaunch,
        DEFAULT_SEARCH_CONTACT_LAUNCH_PATH,
      ),
    }),
    apiKeys,
    jwks: createJwksMethod({ request }),
    setRateLimit(limit) {
      assertRateLimit(limit);
      ceiling = { perInterval: limit.perInterval, intervalSeconds: limit.intervalSeconds };
      pacer.setLimits([ceiling]);
    },
    async learnRateLimit(callOptions = {}) {
      let list: Awaited<ReturnType<ApiKeysResource['list']>>;
      try {
        list = await apiKeys.list(callOptions);
      } catch (error) {
        // A sub-key may not list keys (Authentication rule 4): keep pacing as it is.
        const notMaster =
          error instanceof ServiceError &&
          (error.code === 'AUTH_NEED_MASTER_API_KEY' || error.category === 'PERMISSION');
        if (!notMaster) throw error;
        return { source: 'unchanged', learned: undefined, limits: pacer.limits, reason: error.code };
      }
      const picked = pickKeyRate(list, options.apiKey);
      if (picked === undefined) {
        return { source: 'unchanged', learned: undefined, limits: pacer.limits, reason: 'key not listed' };
      }
      adopt(picked.rate);
      return { source: picked.source, learned: picked.rate, limits: pacer.limits };
    },
    get pacing() {
      return pacer.stats;
    },
  };
}

/**
 * The service client's retry policy: 429 after Retry-After, 500/502/503/504 and network failures with
 * exponential backoff and jitter, never any other 4xx (they cannot succeed on retry), never an answer over
 * the size cap, never a connection that no retry can fix. Run by retryWithPolicy (p-retry).
 */
import { isRetryableStatus } from '../contract/error-codes.js';
import { ServiceError } from '../errors.js';
import type { RetryPolicy } from './retry-with-policy.js';

/** Retries after the first attempt. */
export const DEFAULT_RETRIES = 5;
/** A call gives up rather than start a wait that would end more than this long after it began. */
export const DEFAULT_RETRY_BUDGET_MS = 5 * 60_000;
/** First backoff step for 5xx and network failures; it doubles on each retry... */
export const DEFAULT_MIN_BACKOFF_MS = 500;
/** ...up to this ceiling. */
export const DEFAULT_MAX_BACKOFF_MS = 30_000;

/** Knobs of the service's retry policy; every field has a `DEFAULT_*` above. */
export interface ServiceRetryConfig {
  readonly retries: number;
  readonly retryBudgetMs: number;
  readonly minBackoffMs: number;
  readonly maxBackoffMs: number;
  /** Uniform in [0, 1); `Math.random` unless a test pins it. */
  readonly random: () => number;
}

/** True when the same request could succeed later: no answer at all, 429, or 500/502/503/504. */
export function isRetryableError(error: ServiceError): boolean {
  return error.status === 0 || isRetryableStatus(error.status);
}

/**
 * Failures to reach the service that no retry within one call can fix: nothing listens at the address
 * (a wrong base URL or port; a service that is restarting answers 502/503 from its proxy instead), the
 * host name does not exist, or its TLS certificate is refused.
 */
const UNFIXABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ERR_INVALID_URL',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** True when fetch's failure (its cause chain, or every error of an AggregateError) is one of the above. */
export function isUnfixableNetworkFailure(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.every((inner) => isUnfixableNetworkFailure(inner, depth + 1));
  }
  if (typeof code === 'string' && UNFIXABLE_NETWORK_CODES.has(code)) return true;
  return isUnfixableNetworkFailure(error.cause, depth + 1);
}

/**
 * How long to wait before retry number `retryIndex` (0 for the first retry). A 429 waits exactly what the
 * service named (Retry-After, else the message), else `rateWindowMs`, the pacing window that must pass
 * before the service's count resets. Other failures back off exponentially with "equal jitter": half the
 * step fixed, half random, so that many clients failing together do not come back together.
 */
export function computeRetryDelayMs(
  error: ServiceError,
  retryIndex: number,
  policy: Pick<ServiceRetryConfig, 'minBackoffMs' | 'maxBackoffMs' | 'random'>,
  rateWindowMs: number,
): number {
  const namedMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
  if (error.status === 429) return namedMs ?? rateWindowMs;
  const stepMs = Math.min(policy.maxBackoffMs, policy.minBackoffMs * 2 ** retryIndex);
  const backoffMs = stepMs / 2 + policy.random() * (stepMs / 2);
  return Math.round(Math.max(backoffMs, namedMs ?? 0));
}

/**
 * True when the service client retries `error`: a ServiceError with no answer (except an unfixable network
 * failure) or with 429/500/502/503/504, and never RESPONSE_TOO_LARGE (the same request gets the same answer).
 */
export function isRetryableServiceFailure(error: unknown): boolean {
  if (!(error instanceof ServiceError) || error.code === 'RESPONSE_TOO_LARGE') return false;
  // A refused connection or an unknown host fails at once: waiting would only delay the same line.
  if (error.status === 0 && error.code === 'NETWORK_ERROR' && isUnfixableNetworkFailure(error.cause))
    return false;
  return isRetryableError(error);
}

/** The service client's {@link RetryPolicy}; `rateWindowMs` is the pacing window a 429 without a named wait waits. */
export function createServiceRetryPolicy(
  config: ServiceRetryConfig,
  rateWindowMs: () => number,
): RetryPolicy {
  return {
    retries: config.retries,
    retryBudgetMs: config.retryBudgetMs,
    shouldRetry: isRetryableServiceFailure,
    delayMs: (error, retryIndex) =>
      error instanceof ServiceError ? computeRetryDelayMs(error, retryIndex, config, rateWindowMs()) : 0,
  };
}

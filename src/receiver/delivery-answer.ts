/**
 * What the receiver answers, in one exhaustive table. The service retries only on 429, 500, 502 and 504
 * (interface, Events rule 2), so: 2xx only after the commit; 4xx only for what no retry can fix; 500 for
 * transient trouble; never 503.
 */
import type { RefusalCode, TransientCode } from '../errors.js';

/** How a delivery ended, as counted in metrics and logs. */
export type DeliveryOutcome =
  | 'stored'
  | 'updated'
  | 'duplicate'
  | 'replay'
  | 'fetched'
  | 'refused'
  | 'retry_later'
  | 'overloaded';

/** Every reason a delivery can be refused, with the status the sender sees. */
export const REFUSAL_STATUS: Readonly<Record<RefusalCode, number>> = Object.freeze({
  SIGNATURE_MISSING: 401,
  SIGNATURE_MALFORMED: 401,
  SIGNATURE_BAD_ALG: 401,
  SIGNATURE_BAD_TYP: 401,
  SIGNATURE_UNKNOWN_KID: 401,
  SIGNATURE_INVALID: 401,
  SIGNATURE_CLAIM_MISSING: 401,
  SIGNATURE_EXPIRED: 401,
  SIGNATURE_NOT_YET_VALID: 401,
  SIGNATURE_LIFETIME_TOO_LONG: 401,
  BODY_HASH_ALG_UNSUPPORTED: 401,
  BODY_HASH_MISMATCH: 400,
  BODY_MALFORMED_JSON: 400,
  BODY_NOT_UTF8: 400,
  JOB_ID_MISMATCH: 400,
  // Only reached when the key set cannot answer for an unknown kid: a retry can succeed.
  KEYSET_UNAVAILABLE: 500,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NO_FINDER: 401,
  FINDER_REFUSED: 401,
  // A verified token whose jti already stored another job or body: refused, never a 2xx (issue 19).
  JTI_REUSED: 409,
});

/**
 * Refusals of a token whose signature verified (so the job is real: a late retry, a clock apart, a body we
 * would not take): the token's job_id may mark a ledger entry that already exists, so that reconcile
 * fetches the authoritative copy. Nothing unauthenticated is ever a hint (issue 19).
 */
export const HINTED_REFUSALS: ReadonlySet<RefusalCode> = new Set<RefusalCode>([
  'SIGNATURE_EXPIRED',
  'SIGNATURE_NOT_YET_VALID',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
]);

/** The receiver's answer to one delivery. */
export interface DeliveryAnswer {
  status: number;
  body: Record<string, unknown>;
  outcome: DeliveryOutcome;
  /** Refusal reason or transient code, for logs and metrics. */
  reason?: RefusalCode | TransientCode;
  /** Sent as Retry-After on 429 and 500. */
  retryAfterSeconds?: number;
  /**
   * `close`: the body was not (wholly) read, so answer and close the connection; `destroy`: the sender is
   * gone or too slow, drop the connection without an answer.
   */
  connection?: 'close' | 'destroy';
}

/** A refusal answer: the error object names the reason. */
export function refusal(reason: RefusalCode, message: string): DeliveryAnswer {
  return {
    status: REFUSAL_STATUS[reason],
    body: { status: 'error', code: reason, message },
    outcome: REFUSAL_STATUS[reason] >= 500 ? 'retry_later' : 'refused',
    reason,
  };
}

/**
 * Every transient code with the status the sender sees: 429 when we shed load (too much in flight, a budget
 * spent), 500 for trouble a retry can fix.
 */
export const TRANSIENT_STATUS: Readonly<Record<TransientCode, 429 | 500>> = Object.freeze({
  SIGNATURE_UNKNOWN_KID: 500,
  KEYSET_UNAVAILABLE: 500,
  STORAGE_UNAVAILABLE: 500,
  INTERNAL_ERROR: 500,
  OVERLOADED: 429,
  SHUTTING_DOWN: 500,
  BODY_BUDGET: 429,
  BODY_TIMEOUT: 500,
  BODY_ABORTED: 500,
  FINDER_UNAVAILABLE: 500,
  FINDER_PENDING: 500,
  UNSIGNED_FETCH_BUDGET: 429,
});

/** A transient failure: the sender retries after `retryAfterSeconds` (status from {@link TRANSIENT_STATUS}). */
export function retryLater(code: TransientCode, message: string, retryAfterSeconds = 1): DeliveryAnswer {
  const status = TRANSIENT_STATUS[code];
  return {
    status,
    body: { status: 'error', code, message },
    outcome: status === 429 ? 'overloaded' : 'retry_later',
    reason: code,
    retryAfterSeconds,
  };
}

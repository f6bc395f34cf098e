/**
 * Verifies one webhook callback over its raw bytes (interface, Events rules 3 to 8). Framework-free: the
 * receiver hands in the body bytes and the X-Webhook-Signature header and maps the SignatureError it may
 * get to a status. The token is verified first (verify-token.ts), the body last.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { claimedJobId } from '../contract/job-kind.js';
import { parseJsonText, withoutByteOrderMark } from '../contract/json.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../contract/limits.js';
import type { WebhookClaims } from '../contract/webhook-signature.js';
import { SignatureError } from '../errors.js';
import type { KeySource } from './key-source.js';
import { assertTokenTimes } from './parse-webhook-claims.js';
import { verifyToken } from './verify-token.js';

/** Keeps a byte order mark: the text is the body to store, byte for byte (the parse skips the mark). */
const bodyDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What one verification needs. */
export interface VerifyCallbackInput {
  /** The exact raw request body. */
  body: Uint8Array;
  /** The X-Webhook-Signature header, undefined when absent. */
  signature: string | undefined;
}

/** Collaborators of {@link verifyCallback}. */
export interface VerifyCallbackDeps {
  /** Normally the process's KeySetCache. */
  keys: KeySource;
  /** Clock in epoch milliseconds; default Date.now. */
  now?: () => number;
  /** Allowed clock skew in seconds; default {@link DEFAULT_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
}

/** A callback proven to come from the service, with its parsed body. */
export interface VerifiedCallback {
  claims: WebhookClaims;
  /** The body as text: the raw bytes decoded as UTF-8, unchanged (the copy to store verbatim). */
  text: string;
  /** The body parsed with parseJsonText (int64 values beyond 2^53 come back as bigint, never rounded). */
  envelope: unknown;
  jobId: string;
  jti: string;
  expiresAt: Date;
  kid: string;
}

/**
 * Resolves with the verified callback, or throws SignatureError with the precise reason; `transient` is
 * true only when the key set could not settle the kid (the receiver answers a status the sender retries).
 * Order (issue 19): the token's signature first, then its times, then the body.
 */
export async function verifyCallback(
  input: VerifyCallbackInput,
  deps: VerifyCallbackDeps,
): Promise<VerifiedCallback> {
  const { body, signature } = input;
  if (!(body instanceof Uint8Array)) throw new TypeError('verifyCallback: body must be a Uint8Array');
  const toleranceSeconds = deps.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('verifyCallback: toleranceSeconds must be a non-negative number');
  }
  if (signature === undefined || signature === '') {
    throw new SignatureError('SIGNATURE_MISSING', 'X-Webhook-Signature header is missing');
  }
  if (typeof signature !== 'string') throw new TypeError('verifyCallback: signature must be a string');
  const { claims, kid } = await verifyToken(signature, deps.keys);
  assertTokenTimes(claims, (deps.now ?? Date.now)(), toleranceSeconds);
  assertBodyHash(claims.body_hash, createHash('sha256').update(body).digest());
  return verifiedBody(claims, kid, body);
}

/**
 * Compares a body's SHA-256 digest with the token's body_hash claim in constant time; throws
 * SignatureError BODY_HASH_MISMATCH when they differ (Events rule 6).
 */
export function assertBodyHash(claimed: string, digest: Uint8Array): void {
  const expected = Buffer.from(Buffer.from(digest).toString('base64url'), 'latin1');
  const actual = Buffer.from(claimed, 'utf8');
  // Equal lengths first: timingSafeEqual requires them, and the length of a base64url SHA-256 is public.
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new SignatureError('BODY_HASH_MISMATCH', 'body_hash does not match the body');
  }
}

/**
 * The body of a callback whose token verified and whose hash matched: decoded, parsed, and bound to the
 * token's job_id. Throws SignatureError BODY_MALFORMED_JSON or JOB_ID_MISMATCH.
 */
export function verifiedBody(claims: WebhookClaims, kid: string, body: Uint8Array): VerifiedCallback {
  const { text, envelope } = parseBody(body);
  const bodyJobId = claimedJobId(envelope);
  if (bodyJobId !== claims.job_id) {
    throw new SignatureError(
      'JOB_ID_MISMATCH',
      bodyJobId === undefined
        ? 'body has no input.task.job_id'
        : 'job_id claim differs from input.task.job_id',
    );
  }
  return {
    claims,
    text,
    envelope,
    jobId: claims.job_id,
    jti: claims.jti,
    expiresAt: new Date(claims.exp * 1000),
    kid,
  };
}

function parseBody(body: Uint8Array): { text: string; envelope: unknown } {
  try {
    const text = bodyDecoder.decode(body);
    return { text, envelope: parseJsonText(withoutByteOrderMark(text)) };
  } catch (cause) {
    throw new SignatureError('BODY_MALFORMED_JSON', 'body is not UTF-8 JSON', { cause });
  }
}

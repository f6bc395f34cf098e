/**
 * Verifies one webhook callback over its raw bytes (interface, Events rules 3 to 8). Framework-free: the
 * receiver hands in the body bytes and the X-Webhook-Signature header and maps the SignatureError it may
 * get to a status. Cheap local checks run first; the key set and the signature are touched once, last.
 */
import { timingSafeEqual, webcrypto } from 'node:crypto';
import { claimedJobId } from '../contract/job-kind.js';
import { parseJsonText } from '../contract/json.js';
import {
  computeBodyHash,
  WEBHOOK_JWT_ALG,
  WEBHOOK_JWT_TYP,
  type WebhookClaims,
} from '../contract/webhook-signature.js';
import { SignatureError } from '../errors.js';
import type { KeySource, VerificationKey } from './key-source.js';
import { assertTokenTimes, parseWebhookClaims } from './parse-webhook-claims.js';
import { decodeJsonSegment, splitCompactJws } from './split-compact-jws.js';

/** Clock skew allowed on iat and exp, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 60;

const ED25519_SIGNATURE_BYTES = 64;
const bodyDecoder = new TextDecoder('utf-8', { fatal: true });

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

  const segments = splitCompactJws(signature);
  const header = decodeJsonSegment(segments.header, 'header');
  const kid = checkHeader(header);
  const signatureBytes = Buffer.from(segments.signature, 'base64url');
  // The canonical-encoding check stops the unused trailing bits from making one signature many tokens.
  if (
    signatureBytes.length !== ED25519_SIGNATURE_BYTES ||
    signatureBytes.toString('base64url') !== segments.signature
  ) {
    throw new SignatureError('SIGNATURE_MALFORMED', 'signature segment is not a 64-byte Ed25519 signature');
  }
  const claims = parseWebhookClaims(decodeJsonSegment(segments.payload, 'payload'));
  assertTokenTimes(claims, (deps.now ?? Date.now)(), toleranceSeconds);
  assertBodyHash(claims.body_hash, body);

  const key = await resolveKey(deps.keys, kid);
  const signingInput = Buffer.from(`${segments.header}.${segments.payload}`, 'latin1');
  if (!(await verifyEd25519(key, signatureBytes, signingInput))) {
    throw new SignatureError('SIGNATURE_INVALID', `signature does not verify with key ${describe(kid)}`);
  }

  // Parsed only now: the hash matched, so these are the bytes the service signed.
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

/** Protected-header rules (Events rule 4): alg pinned before any key is touched, typ JWT, kid present. */
function checkHeader(header: Record<string, unknown>): string {
  if (header.alg !== WEBHOOK_JWT_ALG) {
    throw new SignatureError(
      'SIGNATURE_BAD_ALG',
      `alg must be ${WEBHOOK_JWT_ALG}, got ${describe(header.alg)}`,
    );
  }
  if (header.typ !== WEBHOOK_JWT_TYP) {
    throw new SignatureError(
      'SIGNATURE_BAD_TYP',
      `typ must be ${WEBHOOK_JWT_TYP}, got ${describe(header.typ)}`,
    );
  }
  // RFC 7515 §4.1.11: a crit extension we do not implement must be refused; none is defined for webhooks.
  if (header.crit !== undefined) {
    throw new SignatureError('SIGNATURE_MALFORMED', 'crit header is not supported');
  }
  const { kid } = header;
  if (typeof kid !== 'string' || kid.length === 0) {
    throw new SignatureError('SIGNATURE_MALFORMED', 'kid header is missing');
  }
  return kid;
}

function assertBodyHash(claimed: string, body: Uint8Array): void {
  const expected = Buffer.from(computeBodyHash(body), 'latin1');
  const actual = Buffer.from(claimed, 'utf8');
  // Equal lengths first: timingSafeEqual requires them, and the length of a base64url SHA-256 is public.
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new SignatureError('BODY_HASH_MISMATCH', 'body_hash does not match the body');
  }
}

async function resolveKey(keys: KeySource, kid: string): Promise<VerificationKey> {
  const lookup = await keys.getKey(kid);
  switch (lookup.status) {
    case 'found':
      return lookup.key;
    case 'unknown-transient':
      throw new SignatureError(
        lookup.reason,
        lookup.reason === 'KEYSET_UNAVAILABLE'
          ? `key ${describe(kid)} is not held and the key set cannot be fetched`
          : `key ${describe(kid)} is not held; the key set was fetched too recently to fetch again`,
        { transient: true },
      );
    case 'unknown-final':
      throw new SignatureError(
        'SIGNATURE_UNKNOWN_KID',
        `key ${describe(kid)} is not in the service's key set`,
      );
  }
}

async function verifyEd25519(
  key: VerificationKey,
  signature: Uint8Array,
  data: Uint8Array,
): Promise<boolean> {
  try {
    return await webcrypto.subtle.verify('Ed25519', key, signature, data);
  } catch (cause) {
    throw new SignatureError('SIGNATURE_INVALID', 'signature could not be checked with the key', { cause });
  }
}

function parseBody(body: Uint8Array): { text: string; envelope: unknown } {
  try {
    const text = bodyDecoder.decode(body);
    return { text, envelope: parseJsonText(text) };
  } catch (cause) {
    throw new SignatureError('BODY_MALFORMED_JSON', 'body is not UTF-8 JSON', { cause });
  }
}

/** A header value for a message, bounded: it comes from the sender, possibly a hostile one. */
function describe(value: unknown): string {
  return value === undefined ? 'none' : JSON.stringify(value).slice(0, 80);
}

/**
 * Verifies what the X-Webhook-Signature token alone can prove, before any body byte is read (issue 15):
 * compact form, alg, typ, a kid we hold (or may fetch under the cooldown), the Ed25519 signature over
 * header and claims, then the claims' presence. Times are checked by the caller, AFTER this (issue 19: an
 * expired but genuine token is a hint, a forged one is nothing). The compact form is split and decoded here
 * rather than by jose's compactVerify: measured, jose made a 2 KB callback's verification 1.3x as costly
 * (bench/RESULTS.md, "verify"), so only the key import is jose's (key-set-cache.ts).
 */
import { webcrypto } from 'node:crypto';
import { WEBHOOK_JWT_ALG, WEBHOOK_JWT_TYP, type WebhookClaims } from '../contract/webhook-signature.js';
import { SignatureError } from '../errors.js';
import type { KeySource, VerificationKey } from './key-source.js';
import { parseWebhookClaims } from './parse-webhook-claims.js';
import { decodeJsonSegment, SIGNATURE_MAX_LENGTH, splitCompactJws } from './split-compact-jws.js';

/** Base64url length of a 64-byte Ed25519 signature. */
const ED25519_SIGNATURE_CHARS = 86;

/** A token whose signature verified under a key of the service: its claims are the service's word. */
export interface VerifiedToken {
  claims: WebhookClaims;
  kid: string;
}

/**
 * Resolves with the verified token, or throws SignatureError with the reason; `transient` is true when the
 * key set could not settle the kid (the caller answers a status the sender retries). Never reads a body.
 */
export async function verifyToken(signature: string, keys: KeySource): Promise<VerifiedToken> {
  if (typeof signature !== 'string') throw new TypeError('verifyToken: signature must be a string');
  if (signature === '')
    throw new SignatureError('SIGNATURE_MISSING', 'X-Webhook-Signature header is missing');
  if (signature.length > SIGNATURE_MAX_LENGTH) {
    throw malformed(`signature is longer than ${SIGNATURE_MAX_LENGTH} characters`);
  }
  const segments = splitCompactJws(signature);
  const header = decodeJsonSegment(segments.header, 'header');
  if (header.alg !== WEBHOOK_JWT_ALG) {
    throw new SignatureError(
      'SIGNATURE_BAD_ALG',
      `alg must be ${WEBHOOK_JWT_ALG}, got ${describe(header.alg)}`,
    );
  }
  const kid = checkHeader(header);
  assertCanonicalSignature(signature);
  const key = await resolveKey(keys, kid);
  const signingInput = Buffer.from(`${segments.header}.${segments.payload}`, 'latin1');
  let valid: boolean;
  try {
    valid = await webcrypto.subtle.verify(
      'Ed25519',
      key,
      Buffer.from(segments.signature, 'base64url'),
      signingInput,
    );
  } catch (cause) {
    throw new SignatureError('SIGNATURE_INVALID', 'signature could not be checked with the key', { cause });
  }
  if (!valid)
    throw new SignatureError('SIGNATURE_INVALID', `signature does not verify with key ${describe(kid)}`);
  return { claims: parseWebhookClaims(decodeJsonSegment(segments.payload, 'payload')), kid };
}

/** Base64url decoding is lenient: a canonical 86-character segment keeps one signature one token. */
function assertCanonicalSignature(signature: string): void {
  const segment = signature.slice(signature.lastIndexOf('.') + 1);
  if (
    segment.length !== ED25519_SIGNATURE_CHARS ||
    Buffer.from(segment, 'base64url').toString('base64url') !== segment
  ) {
    throw malformed('signature segment is not a 64-byte Ed25519 signature');
  }
}

/** Protected-header rules (Events rule 4) beyond alg, which jose pins: typ JWT, no crit, a kid. */
function checkHeader(header: Record<string, unknown>): string {
  if (header.typ !== WEBHOOK_JWT_TYP) {
    throw new SignatureError(
      'SIGNATURE_BAD_TYP',
      `typ must be ${WEBHOOK_JWT_TYP}, got ${describe(header.typ)}`,
    );
  }
  // RFC 7515 §4.1.11: a crit extension we do not implement must be refused; none is defined for webhooks.
  if (header.crit !== undefined) throw malformed('crit header is not supported');
  const { kid } = header;
  if (typeof kid !== 'string' || kid.length === 0) throw malformed('kid header is missing');
  return kid;
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
          : `key ${describe(kid)} is not in the service's key set yet; retry later`,
        { transient: true },
      );
    case 'unknown-final':
      throw new SignatureError(
        'SIGNATURE_UNKNOWN_KID',
        `key ${describe(kid)} is not in the service's key set`,
      );
  }
}

function malformed(message: string, cause?: unknown): SignatureError {
  return new SignatureError('SIGNATURE_MALFORMED', message, { cause });
}

/** A header value for a message, bounded: it comes from the sender, possibly a hostile one. */
function describe(value: unknown): string {
  return value === undefined ? 'none' : JSON.stringify(value).slice(0, 80);
}

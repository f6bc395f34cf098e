/**
 * Verifies what the X-Webhook-Signature token alone can prove, before any body byte is read (issue 15):
 * compact form, alg, typ, a kid we hold (or may fetch under the cooldown), the Ed25519 signature over
 * header and claims, then the claims' presence. jose's compactVerify does the parsing and the signature;
 * the key comes from the key-set cache through its key resolver. Times are checked by the caller, AFTER
 * this (issue 19: an expired but genuine token is a hint, a forged one is nothing).
 */
import { compactVerify, errors as joseErrors } from 'jose';
import { WEBHOOK_JWT_ALG, WEBHOOK_JWT_TYP, type WebhookClaims } from '../contract/webhook-signature.js';
import { SignatureError } from '../errors.js';
import type { KeySource, VerificationKey } from './key-source.js';
import { parseWebhookClaims } from './parse-webhook-claims.js';
import { isPlainObject, SIGNATURE_MAX_LENGTH } from './split-compact-jws.js';

/** Base64url length of a 64-byte Ed25519 signature. */
const ED25519_SIGNATURE_CHARS = 86;
const payloadDecoder = new TextDecoder('utf-8', { fatal: true });

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
  let kid = '';
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(
      signature,
      async (header) => {
        kid = checkHeader(header);
        assertCanonicalSignature(signature);
        return resolveKey(keys, kid);
      },
      { algorithms: [WEBHOOK_JWT_ALG] },
    ));
  } catch (error) {
    throw toSignatureError(error, kid);
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(payloadDecoder.decode(payload));
  } catch (cause) {
    throw malformed('payload segment is not JSON', cause);
  }
  if (!isPlainObject(decoded)) throw malformed('payload segment is not a JSON object');
  return { claims: parseWebhookClaims(decoded), kid };
}

/** jose decodes base64url leniently: a canonical 86-character segment keeps one signature one token. */
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

function toSignatureError(error: unknown, kid: string): SignatureError {
  if (error instanceof SignatureError) return error;
  if (
    error instanceof joseErrors.JOSEAlgNotAllowed ||
    (error instanceof joseErrors.JWSInvalid && error.message.includes('"alg"'))
  ) {
    return new SignatureError('SIGNATURE_BAD_ALG', `alg must be ${WEBHOOK_JWT_ALG}`, { cause: error });
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return new SignatureError('SIGNATURE_INVALID', `signature does not verify with key ${describe(kid)}`, {
      cause: error,
    });
  }
  return malformed(
    error instanceof joseErrors.JOSEError ? error.message : 'signature could not be checked',
    error,
  );
}

function malformed(message: string, cause?: unknown): SignatureError {
  return new SignatureError('SIGNATURE_MALFORMED', message, { cause });
}

/** A header value for a message, bounded: it comes from the sender, possibly a hostile one. */
function describe(value: unknown): string {
  return value === undefined ? 'none' : JSON.stringify(value).slice(0, 80);
}

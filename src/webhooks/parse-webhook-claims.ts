/**
 * The claim rules of a webhook token (interface, Events rules 5 and 7): presence and types first, then the
 * lifetime and the clock. Pure functions over the decoded payload; the signature is checked elsewhere.
 */
import { SIGNATURE_LIFETIME_SECONDS } from '../contract/limits.js';
import { WEBHOOK_BODY_HASH_ALG, type WebhookClaims } from '../contract/webhook-signature.js';
import { SignatureError } from '../errors.js';

/**
 * Validates the claims a webhook token must carry. Throws SignatureError SIGNATURE_CLAIM_MISSING when a
 * claim is absent or of the wrong type (iat/exp finite numbers, the others non-empty strings), and
 * BODY_HASH_ALG_UNSUPPORTED when body_hash_alg is not `sha-256`.
 */
export function parseWebhookClaims(payload: Record<string, unknown>): WebhookClaims {
  const iat = requireNumber(payload, 'iat');
  const exp = requireNumber(payload, 'exp');
  const jti = requireString(payload, 'jti');
  const job_id = requireString(payload, 'job_id');
  const body_hash = requireString(payload, 'body_hash');
  const body_hash_alg = requireString(payload, 'body_hash_alg');
  if (body_hash_alg !== WEBHOOK_BODY_HASH_ALG) {
    throw new SignatureError(
      'BODY_HASH_ALG_UNSUPPORTED',
      `body_hash_alg must be ${WEBHOOK_BODY_HASH_ALG}, got ${JSON.stringify(body_hash_alg.slice(0, 40))}`,
    );
  }
  return { iat, exp, jti, job_id, body_hash, body_hash_alg };
}

/**
 * Checks a token's lifetime and validity window at `nowMs`, allowing `toleranceSeconds` of clock skew:
 * exp must not precede iat nor exceed iat + 900 s (Limits: signature lifetime), iat must not lie in the
 * future, and the token has expired once now ≥ exp + tolerance (RFC 7519 §4.1.4: valid only before exp).
 */
export function assertTokenTimes(claims: WebhookClaims, nowMs: number, toleranceSeconds: number): void {
  const { iat, exp } = claims;
  if (exp < iat) {
    throw new SignatureError('SIGNATURE_MALFORMED', 'exp precedes iat');
  }
  if (exp - iat > SIGNATURE_LIFETIME_SECONDS) {
    throw new SignatureError(
      'SIGNATURE_LIFETIME_TOO_LONG',
      `exp is ${exp - iat} s after iat; a signature lives at most ${SIGNATURE_LIFETIME_SECONDS} s`,
    );
  }
  const nowSeconds = nowMs / 1000;
  if (iat > nowSeconds + toleranceSeconds) {
    throw new SignatureError(
      'SIGNATURE_NOT_YET_VALID',
      `iat is ${Math.round(iat - nowSeconds)} s in the future`,
    );
  }
  if (nowSeconds >= exp + toleranceSeconds) {
    throw new SignatureError('SIGNATURE_EXPIRED', `signature expired ${Math.round(nowSeconds - exp)} s ago`);
  }
}

function requireNumber(payload: Record<string, unknown>, name: 'iat' | 'exp'): number {
  const value = payload[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw missing(name, 'a number', value);
  return value;
}

function requireString(payload: Record<string, unknown>, name: string): string {
  const value = payload[name];
  if (typeof value !== 'string' || value.length === 0) throw missing(name, 'a non-empty string', value);
  return value;
}

function missing(name: string, expected: string, value: unknown): SignatureError {
  const detail = value === undefined ? 'is missing' : `must be ${expected}`;
  return new SignatureError('SIGNATURE_CLAIM_MISSING', `claim ${name} ${detail}`);
}

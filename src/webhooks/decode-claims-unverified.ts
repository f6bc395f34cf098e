/**
 * Reads a webhook token's claims WITHOUT verifying anything, for display only: the quarantine shows the
 * claimed job_id of a callback whose token failed. Never trust these values for anything else (no hint
 * comes from them). jose decodes; only refusal paths call this, so its cost is not on the hot path.
 */
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { SIGNATURE_MAX_LENGTH } from './split-compact-jws.js';

/** Claims as a token states them, unverified; a field is present only when it has the right type. */
export interface UnverifiedClaims {
  iat?: number;
  exp?: number;
  jti?: string;
  job_id?: string;
  body_hash?: string;
  body_hash_alg?: string;
}

/**
 * The claims a signature header states, unverified, or undefined when it cannot be decoded: longer than the
 * verifier's bound, not three segments, a header or payload that is not a JSON object. Never throws.
 */
export function decodeClaimsUnverified(signature: string | undefined): UnverifiedClaims | undefined {
  if (typeof signature !== 'string' || signature === '' || signature.length > SIGNATURE_MAX_LENGTH) {
    return undefined;
  }
  let payload: Record<string, unknown>;
  try {
    decodeProtectedHeader(signature);
    payload = decodeJwt(signature);
  } catch {
    return undefined;
  }
  const claims: UnverifiedClaims = {};
  for (const name of ['iat', 'exp'] as const) {
    const value = payload[name];
    if (typeof value === 'number' && Number.isFinite(value)) claims[name] = value;
  }
  for (const name of ['jti', 'job_id', 'body_hash', 'body_hash_alg'] as const) {
    const value = payload[name];
    if (typeof value === 'string' && value !== '') claims[name] = value;
  }
  return claims;
}

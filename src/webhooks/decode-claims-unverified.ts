/**
 * Reads a webhook token's claims WITHOUT verifying anything, for hints only: the receiver records the
 * claimed job_id of an expired or unverifiable callback so that reconcile fetches the authoritative copy.
 * Never trust these values for anything else.
 */
import { decodeJsonSegment, splitCompactJws } from './split-compact-jws.js';

/** Claims as a token states them, unverified; a field is present only when it has the right type. */
export interface UnverifiedClaims {
  iat?: number;
  exp?: number;
  jti?: string;
  job_id?: string;
  body_hash?: string;
  body_hash_alg?: string;
}

/** The claims a signature header states, unverified, or undefined when it cannot be decoded. Never throws. */
export function decodeClaimsUnverified(signature: string | undefined): UnverifiedClaims | undefined {
  if (typeof signature !== 'string' || signature === '') return undefined;
  let payload: Record<string, unknown>;
  try {
    payload = decodeJsonSegment(splitCompactJws(signature).payload, 'payload');
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

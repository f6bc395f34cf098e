/**
 * The webhook signature as the interface defines it (Events part): a compact Ed25519 JWT in the
 * X-Webhook-Signature header whose body_hash covers the exact raw body bytes. Shared by the
 * simulator (signing) and the verifier.
 */
import { createHash } from 'node:crypto';

/** Header name, lower-cased as node:http presents it. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-webhook-signature';
export const WEBHOOK_JWT_ALG = 'EdDSA';
export const WEBHOOK_JWT_TYP = 'JWT';
export const WEBHOOK_BODY_HASH_ALG = 'sha-256';
/** Claims every webhook token carries. */
export const WEBHOOK_REQUIRED_CLAIMS = ['iat', 'exp', 'jti', 'job_id', 'body_hash', 'body_hash_alg'] as const;
/** Path of the key set, relative to the service's base URL. */
export const JWKS_PATH = '/.well-known/jwks.json';

/** Claims of a webhook token. */
export interface WebhookClaims {
  iat: number;
  exp: number;
  jti: string;
  job_id: string;
  body_hash: string;
  body_hash_alg: typeof WEBHOOK_BODY_HASH_ALG;
}

/** SHA-256 of the exact body bytes, base64url without padding (Events, rule 6). */
export function computeBodyHash(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('base64url');
}

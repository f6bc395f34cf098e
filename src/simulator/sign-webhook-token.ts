/**
 * Signs a webhook callback as the interface specifies (Events, rules 3 to 7): a compact JWT, protected
 * header {alg: EdDSA, kid, typ: JWT}, claims iat, exp = iat + 900, jti, job_id, body_hash, body_hash_alg.
 */
import { randomUUID, sign } from 'node:crypto';
import { SIGNATURE_LIFETIME_SECONDS } from '../contract/limits.js';
import {
  computeBodyHash,
  WEBHOOK_BODY_HASH_ALG,
  WEBHOOK_JWT_ALG,
  WEBHOOK_JWT_TYP,
  type WebhookClaims,
} from '../contract/webhook-signature.js';
import type { SigningKey } from './signing-key-ring.js';

/** What one token is about. */
export interface WebhookTokenInput {
  readonly key: SigningKey;
  readonly jobId: string;
  /** The exact body bytes the token covers. */
  readonly body: Uint8Array | string;
  /** Issue time, ms since the epoch (whole seconds go in iat). */
  readonly nowMs: number;
  /** Token id; a random UUID by default. */
  readonly jti?: string | undefined;
}

/** A signed token and its claims. */
export interface WebhookToken {
  readonly token: string;
  readonly claims: WebhookClaims;
  readonly kid: string;
}

function encodeSegment(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Signs `body` for `jobId` with `key`. */
export function signWebhookToken(input: WebhookTokenInput): WebhookToken {
  const iat = Math.floor(input.nowMs / 1000);
  const claims: WebhookClaims = {
    iat,
    exp: iat + SIGNATURE_LIFETIME_SECONDS,
    jti: input.jti ?? randomUUID(),
    job_id: input.jobId,
    body_hash: computeBodyHash(input.body),
    body_hash_alg: WEBHOOK_BODY_HASH_ALG,
  };
  const signingInput = `${encodeSegment({ alg: WEBHOOK_JWT_ALG, kid: input.key.kid, typ: WEBHOOK_JWT_TYP })}.${encodeSegment(claims)}`;
  const signature = sign(null, Buffer.from(signingInput), input.key.privateKey).toString('base64url');
  return { token: `${signingInput}.${signature}`, claims, kid: input.key.kid };
}

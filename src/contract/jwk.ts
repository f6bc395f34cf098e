/**
 * The webhook verification key (Resources, Webhook verification key) and the key set served at
 * GET /.well-known/jwks.json.
 */
import { z } from 'zod';

/** An Ed25519 public key is 32 bytes: 43 characters of unpadded base64url (RFC 8037). */
export const ED25519_X_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** One Ed25519 verification key as a JWK: kty OKP, crv Ed25519, use sig, alg EdDSA, a kid and x. */
export const jwkSchema = z.looseObject({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  kid: z.string().min(1, { error: 'must be a non-empty key id' }),
  use: z.literal('sig'),
  alg: z.literal('EdDSA'),
  x: z
    .string()
    .regex(ED25519_X_PATTERN, { error: 'must be a 32-byte key in unpadded base64url (43 characters)' }),
});
export type Jwk = z.output<typeof jwkSchema>;

/** The key set: at least one key. */
export const jwksSchema = z.looseObject({
  keys: z.array(jwkSchema).min(1, { error: 'must hold at least one key' }),
});
export type Jwks = z.output<typeof jwksSchema>;

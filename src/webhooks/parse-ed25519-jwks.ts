/**
 * Picks the usable webhook verification keys out of a JWKS answer (interface, Resources: Webhook
 * verification key; Endpoints: Webhook JWKS), validated with the contract's jwkSchema. Keys of other
 * types are skipped, never fatal.
 */
import { jwkSchema } from '../contract/jwk.js';
import { SignatureError } from '../errors.js';
import { isPlainObject } from './split-compact-jws.js';

/** An Ed25519 public key as the interface describes it; only kid and x are used. */
export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  kid: string;
  /** Unpadded base64url public key, 32 bytes. */
  x: string;
}

/** A key the set held but hooksync cannot use, and why. */
export interface SkippedJwk {
  kid: string | undefined;
  reason: string;
}

/** The usable keys of a key set, in its order, and the skipped ones. */
export interface ParsedEd25519Jwks {
  keys: Ed25519PublicJwk[];
  skipped: SkippedJwk[];
}

/**
 * Parses `{ keys: [...] }`, keeping each entry the contract's jwkSchema accepts (kty OKP, crv Ed25519,
 * use sig, alg EdDSA, a kid, a 32-byte x) whose kid was not seen before in the set; the others are
 * skipped. Throws SignatureError KEYSET_UNAVAILABLE (transient) when the value is not a key set at all.
 */
export function parseEd25519Jwks(value: unknown): ParsedEd25519Jwks {
  if (!isPlainObject(value) || !Array.isArray(value.keys)) {
    throw new SignatureError('KEYSET_UNAVAILABLE', 'key set answer is not a JSON Web Key Set', {
      transient: true,
    });
  }
  const keys: Ed25519PublicJwk[] = [];
  const skipped: SkippedJwk[] = [];
  const seen = new Set<string>();
  // Entry by entry rather than jwksSchema as a whole: a key of another type is skipped, never fatal.
  for (const entry of value.keys as unknown[]) {
    const parsed = jwkSchema.safeParse(entry);
    if (!parsed.success) {
      const kid = isPlainObject(entry) && typeof entry.kid === 'string' ? entry.kid : undefined;
      skipped.push({ kid, reason: describeIssue(parsed.error.issues[0]) });
    } else if (seen.has(parsed.data.kid)) {
      skipped.push({ kid: parsed.data.kid, reason: 'duplicate kid' });
    } else {
      seen.add(parsed.data.kid);
      keys.push({ kty: 'OKP', crv: 'Ed25519', kid: parsed.data.kid, x: parsed.data.x });
    }
  }
  return { keys, skipped };
}

function describeIssue(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (issue === undefined) return 'not a verification key';
  const where = issue.path.map(String).join('.');
  return where === '' ? issue.message : `${where}: ${issue.message}`;
}

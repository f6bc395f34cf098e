/**
 * An independent check of a webhook signature, written from the interface text alone with node:crypto
 * (not with hooksync's verifier): the key set is fetched over HTTP, the Ed25519 signature checked with
 * crypto.verify, and body_hash recomputed from the received bytes.
 */
import { createHash, createPublicKey, type JsonWebKey, verify } from 'node:crypto';

/** What the check found; `signatureValid` and `bodyHashMatches` are the verdicts. */
export interface IndependentCheck {
  header: { alg?: unknown; kid?: unknown; typ?: unknown };
  claims: Record<string, unknown>;
  signatureValid: boolean;
  bodyHashMatches: boolean;
  /** The recomputed hash of the received bytes. */
  bodyHash: string;
}

function decodeSegment(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Fetches the key set at `jwksUrl`. */
export async function fetchJwks(jwksUrl: string): Promise<JsonWebKey[]> {
  const response = await fetch(jwksUrl);
  if (response.status !== 200) throw new Error(`JWKS answered ${response.status}`);
  return ((await response.json()) as { keys: JsonWebKey[] }).keys;
}

/** Checks `token` over `body` against the key set at `jwksUrl`. */
export async function verifyIndependently(
  token: string,
  body: Buffer,
  jwksUrl: string,
): Promise<IndependentCheck> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('not a compact JWS');
  const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
  const header = decodeSegment(headerPart);
  const claims = decodeSegment(claimsPart);
  const keys = await fetchJwks(jwksUrl);
  const jwk = keys.find((key) => key.kid === header.kid);
  const signatureValid =
    jwk !== undefined &&
    verify(
      null,
      Buffer.from(`${headerPart}.${claimsPart}`),
      createPublicKey({ key: jwk, format: 'jwk' }),
      Buffer.from(signaturePart, 'base64url'),
    );
  const bodyHash = createHash('sha256').update(body).digest('base64url');
  return { header, claims, signatureValid, bodyHashMatches: claims.body_hash === bodyHash, bodyHash };
}

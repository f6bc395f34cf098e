/**
 * The seam between the verifier and the key set: a kid goes in, a key or a verdict on its absence comes
 * out. KeySetCache is the implementation; the verifier depends only on this.
 */
import type { webcrypto } from 'node:crypto';

/** A verification key imported once, usable with WebCrypto and jose. */
export type VerificationKey = webcrypto.CryptoKey;

/**
 * What a lookup by kid found: the key; an absence a retry may cure (the key set is unreachable, or was
 * fetched too recently to fetch again); or an absence a fresh key set has confirmed.
 */
export type KeyLookup =
  | { status: 'found'; kid: string; key: VerificationKey }
  | { status: 'unknown-transient'; kid: string; reason: 'KEYSET_UNAVAILABLE' | 'SIGNATURE_UNKNOWN_KID' }
  | { status: 'unknown-final'; kid: string };

/** Anything that resolves a kid the way KeySetCache does. */
export interface KeySource {
  getKey(kid: string): Promise<KeyLookup>;
}

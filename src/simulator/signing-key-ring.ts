/**
 * The simulator's webhook signing keys (Events; Webhook verification key): Ed25519 pairs, the newest signs,
 * retired ones stay in the key set for a grace period so that callbacks already in flight still verify.
 * Optionally kept in a JSON file of private JWKs, newest first, so that a restart keeps the same keys.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Jwk, Jwks } from '../contract/jwk.js';
import { WEBHOOK_JWT_ALG } from '../contract/webhook-signature.js';
import { ConfigError } from '../errors.js';

/** One signing key: the private half signs, the JWK is what receivers see. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly jwk: Jwk;
}

/** Knobs of a {@link SigningKeyRing}. */
export interface SigningKeyRingOptions {
  /** How long a retired key stays in the key set, in ms. */
  graceMs: number;
  now: () => number;
  /** JSON file of private JWKs: read when present, written when absent and after each rotation. */
  file?: string | undefined;
}

/** The key id: the RFC 7638 thumbprint of the public key (SHA-256, base64url). */
export function thumbprintKid(x: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

function toSigningKey(privateKey: KeyObject, kid?: string): SigningKey {
  const exported = createPublicKey(privateKey).export({ format: 'jwk' });
  if (exported.kty !== 'OKP' || exported.crv !== 'Ed25519' || typeof exported.x !== 'string') {
    throw new TypeError('not an Ed25519 key');
  }
  const id = kid ?? thumbprintKid(exported.x);
  const jwk: Jwk = { kty: 'OKP', crv: 'Ed25519', kid: id, use: 'sig', alg: WEBHOOK_JWT_ALG, x: exported.x };
  return { kid: id, privateKey, jwk: Object.freeze(jwk) };
}

/** A fresh Ed25519 signing key. */
export function generateSigningKey(): SigningKey {
  return toSigningKey(generateKeyPairSync('ed25519').privateKey);
}

/** A signing key from an Ed25519 private JWK; its kid is kept, or the thumbprint when it has none. */
export function importSigningKey(jwk: JsonWebKey): SigningKey {
  if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string') {
    throw new TypeError('expected an Ed25519 (OKP) private JWK');
  }
  const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  return toSigningKey(privateKey, typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : undefined);
}

function readKeyFile(file: string): SigningKey[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const keys = (parsed as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys) || keys.length === 0)
      throw new TypeError('expected {"keys": [private JWK, ...]}');
    return keys.map((jwk: JsonWebKey) => importSigningKey(jwk));
  } catch (error) {
    throw new ConfigError(`--keys ${file}: not a usable key file (${(error as Error).message})`, {
      cause: error,
    });
  }
}

function writeKeyFile(file: string, keys: readonly SigningKey[]): void {
  const jwks = keys.map((key) => ({
    ...key.privateKey.export({ format: 'jwk' }),
    kid: key.kid,
    use: 'sig',
    alg: 'EdDSA',
  }));
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ keys: jwks }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/** The signing key in force and the retired keys still published. */
export class SigningKeyRing {
  readonly #options: SigningKeyRingOptions;
  #current: SigningKey;
  #retired: { key: SigningKey; expiresAtMs: number }[] = [];

  constructor(options: SigningKeyRingOptions) {
    this.#options = options;
    const loaded =
      options.file !== undefined && existsSync(options.file) ? readKeyFile(options.file) : undefined;
    this.#current = loaded?.[0] ?? generateSigningKey();
    // Keys listed after the first were retired before a restart: their grace period starts again now.
    const expiresAtMs = options.now() + options.graceMs;
    this.#retired = (loaded ?? []).slice(1).map((key) => ({ key, expiresAtMs }));
    if (options.file !== undefined && loaded === undefined) writeKeyFile(options.file, [this.#current]);
  }

  /** The key that signs now. */
  get current(): SigningKey {
    return this.#current;
  }

  /** Makes a new key the signer; the old one stays published for the grace period. */
  rotate(): { kid: string; previousKid: string } {
    const previous = this.#current;
    this.#prune();
    this.#retired.unshift({ key: previous, expiresAtMs: this.#options.now() + this.#options.graceMs });
    this.#current = generateSigningKey();
    if (this.#options.file !== undefined) {
      writeKeyFile(this.#options.file, [this.#current, ...this.#retired.map((r) => r.key)]);
    }
    return { kid: this.#current.kid, previousKid: previous.kid };
  }

  #prune(): void {
    const now = this.#options.now();
    this.#retired = this.#retired.filter((r) => r.expiresAtMs > now);
  }

  /** The key set: the signer first, then the retired keys still in their grace period. */
  jwks(): Jwks {
    this.#prune();
    return { keys: [this.#current.jwk, ...this.#retired.map((r) => r.key.jwk)] };
  }
}

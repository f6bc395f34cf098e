/**
 * Signing side of the webhook signature for tests: Ed25519 keys from node:crypto, tokens assembled by
 * hand so that any header or claim can be bent, and a fixed clock.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { computeBodyHash } from '../../../../src/contract/webhook-signature.js';

/** The fixed instant the tests run at: 2025-01-15T12:00:00Z. */
export const NOW_MS = Date.UTC(2025, 0, 15, 12, 0, 0);
export const NOW_SECONDS = NOW_MS / 1000;
export const JOB_ID = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';

/** A settable clock. */
export interface FakeClock {
  now: () => number;
  advance(ms: number): void;
}

/** A clock standing at `startMs` until advanced. */
export function createFakeClock(startMs = NOW_MS): FakeClock {
  let current = startMs;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
  };
}

/** An Ed25519 key pair and its public JWK as the service publishes it. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  jwk: { kty: 'OKP'; crv: 'Ed25519'; kid: string; use: 'sig'; alg: 'EdDSA'; x: string };
}

/** Makes a fresh signing key named `kid`. */
export function createSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  if (typeof x !== 'string') throw new Error('no x in exported JWK');
  return {
    kid,
    privateKey,
    publicKey,
    jwk: { kty: 'OKP', crv: 'Ed25519', kid, use: 'sig', alg: 'EdDSA', x },
  };
}

/** base64url of the JSON text of `value`. */
export function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** `header.payload.signature` signed with Ed25519 over the given segments. */
export function signSegments(header: string, payload: string, privateKey: KeyObject): string {
  const signature = sign(null, Buffer.from(`${header}.${payload}`), privateKey).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

/** A Company Reveal envelope as the service sends it (about 2 KB). */
export function makeEnvelope(jobId = JOB_ID): Record<string, unknown> {
  return {
    status: 'SUCCEEDED',
    start_date: '2025-01-15T11:59:58.123456+00:00',
    stop_date: '2025-01-15T11:59:59.654321+00:00',
    input: {
      task: {
        ip: '203.0.113.7',
        webhook_url: 'https://hooks.example.com/webhooks',
        custom_fields: { crm_id: 'A-1', score: 7, vip: true },
        job_id: jobId,
        context_id: '0b7e4f7a-2c1d-4e3f-9a8b-7c6d5e4f3a2b',
      },
    },
    output: {
      ip: '203.0.113.7',
      type: 'company',
      confidence_score: 'high',
      ip_geo: { city: 'Lyon', state: 'Auvergne-Rhône-Alpes', country: 'France' },
      company: {
        id: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
        domain: 'example.com',
        name: 'Example SA',
        website: 'https://example.com',
        linkedin_id: '1234567',
        description: 'Makes examples. '.repeat(40),
        size: '1001-5000',
        employees_count: 1200,
        industry: 'Software Development',
        founded: 1999,
        address: '1 rue de l’Exemple, Lyon',
        country: 'France',
        funding_details: { total_funding_rounds: 1, total_funding_usd: 9007199254740991, funding_rounds: [] },
        technologies: ['nginx', 'postgres'],
      },
      usage: {
        total_usd: 0.05,
        balance_remaining_usd: 99.95,
        persons_count: 0,
        persons_usd: 0,
        phones_count: 0,
        phones_usd: 0,
        companies_count: 1,
        companies_usd: 0.05,
      },
    },
  };
}

/** A signed delivery: body bytes and the X-Webhook-Signature value. */
export interface Delivery {
  body: Uint8Array;
  signature: string;
  claims: Record<string, unknown>;
  header: Record<string, unknown>;
}

/** Options of {@link makeDelivery}; a header or claim set to undefined is removed. */
export interface DeliveryOptions {
  key: SigningKey;
  body?: Uint8Array;
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  /** Sign with this key instead of `key` (the header still names `key.kid`). */
  signWith?: KeyObject;
}

/** A valid delivery at {@link NOW_MS}, then bent by the options. */
export function makeDelivery(options: DeliveryOptions): Delivery {
  const body = options.body ?? Buffer.from(JSON.stringify(makeEnvelope()));
  const header = withoutUndefined({ alg: 'EdDSA', typ: 'JWT', kid: options.key.kid, ...options.header });
  const claims = withoutUndefined({
    iat: NOW_SECONDS - 5,
    exp: NOW_SECONDS - 5 + 900,
    jti: 'a3f1c9e2-7b6d-4e5f-8a9b-1c2d3e4f5a6b',
    job_id: JOB_ID,
    body_hash: computeBodyHash(body),
    body_hash_alg: 'sha-256',
    ...options.claims,
  });
  const signature = signSegments(
    encodeSegment(header),
    encodeSegment(claims),
    options.signWith ?? options.key.privateKey,
  );
  return { body, signature, claims, header };
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

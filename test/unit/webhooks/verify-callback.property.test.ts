import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../src/contract/json.js';
import { computeBodyHash } from '../../../src/contract/webhook-signature.js';
import { SignatureError } from '../../../src/errors.js';
import { createKeySetCache, type KeySetCache } from '../../../src/webhooks/key-set-cache.js';
import { verifyCallback } from '../../../src/webhooks/verify-callback.js';
import { type JwksServer, startJwksServer } from './support/jwks-server.js';
import {
  createFakeClock,
  createSigningKey,
  encodeSegment,
  JOB_ID,
  makeDelivery,
  makeEnvelope,
  NOW_SECONDS,
  signSegments,
} from './support/tokens.js';

const SEED = 20250115;
const TOKEN_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'];
const key = createSigningKey('key-prop');
const clock = createFakeClock();
let server: JwksServer;
let cache: KeySetCache;

beforeAll(async () => {
  server = await startJwksServer([key.jwk]);
  cache = createKeySetCache({ url: server.url, now: clock.now });
  await cache.load();
});
afterAll(() => server.close());

/** Verifies and classifies: 'ok', or the SignatureError; anything else fails the property. */
async function outcome(body: Uint8Array, signature: string | undefined): Promise<'ok' | SignatureError> {
  try {
    await verifyCallback({ body, signature }, { keys: cache, now: clock.now });
    return 'ok';
  } catch (error) {
    if (error instanceof SignatureError) return error;
    throw error;
  }
}

const anyJson = fc.jsonValue({ maxDepth: 3 });
const claimValue = (valid: fc.Arbitrary<unknown>) => fc.oneof(valid, valid, anyJson, fc.constant(undefined));

describe('verifyCallback on arbitrary input', () => {
  it('resolves or throws SignatureError for arbitrary header strings and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.string({ maxLength: 300 }),
          fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), maxLength: 200 }),
        ),
        fc.uint8Array({ maxLength: 300 }),
        async (signature, body) => {
          expect(await outcome(body, signature)).toBeInstanceOf(SignatureError);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('resolves or throws SignatureError for signed tokens with arbitrary headers and claims', async () => {
    const header = fc.record({
      alg: fc.oneof(fc.constant('EdDSA'), fc.constant('none'), fc.constant('HS256'), anyJson),
      typ: fc.oneof(fc.constant('JWT'), anyJson),
      kid: fc.oneof(fc.constant(key.kid), fc.constant(key.kid), fc.string({ maxLength: 8 }), anyJson),
    });
    const claims = fc.record({
      iat: claimValue(fc.integer({ min: NOW_SECONDS - 1200, max: NOW_SECONDS + 120 })),
      exp: claimValue(fc.integer({ min: NOW_SECONDS - 120, max: NOW_SECONDS + 1200 })),
      jti: claimValue(fc.uuid()),
      job_id: claimValue(fc.constantFrom(JOB_ID, '00000000-0000-4000-8000-000000000000')),
      body_hash_alg: claimValue(fc.constantFrom('sha-256', 'sha-512')),
      hashOk: fc.boolean(),
    });
    const body = fc.oneof(
      fc.constant(Buffer.from(JSON.stringify(makeEnvelope()))),
      fc.uint8Array({ maxLength: 64 }),
      anyJson.map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
    );
    await fc.assert(
      fc.asyncProperty(header, claims, body, async (h, { hashOk, ...c }, b) => {
        const payload = { ...c, body_hash: hashOk ? computeBodyHash(b) : computeBodyHash('other') };
        const signature = signSegments(encodeSegment(h), encodeSegment(payload), key.privateKey);
        const result = await outcome(b, signature);
        if (result === 'ok') {
          // Success only for a token that meets every rule.
          expect(h).toMatchObject({ alg: 'EdDSA', typ: 'JWT', kid: key.kid });
          expect(hashOk).toBe(true);
          expect(c.body_hash_alg).toBe('sha-256');
          expect(Number(c.exp) - Number(c.iat)).toBeLessThanOrEqual(900);
        } else {
          expect(result).toBeInstanceOf(SignatureError);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('checks the signature first: a token under the right kid but another key never reaches its claims', async () => {
    const rogue = createSigningKey('key-prop');
    const claims = fc.record({
      iat: claimValue(fc.integer({ min: NOW_SECONDS - 5000, max: NOW_SECONDS + 5000 })),
      exp: claimValue(fc.integer({ min: NOW_SECONDS - 5000, max: NOW_SECONDS + 5000 })),
      jti: claimValue(fc.uuid()),
      job_id: claimValue(fc.constant(JOB_ID)),
      body_hash_alg: claimValue(fc.constantFrom('sha-256', 'sha-512')),
    });
    const body = Buffer.from(JSON.stringify(makeEnvelope()));
    await fc.assert(
      fc.asyncProperty(claims, fc.boolean(), async (c, hashOk) => {
        const payload = { ...c, body_hash: hashOk ? computeBodyHash(body) : 'x' };
        const header = { alg: 'EdDSA', typ: 'JWT', kid: key.kid };
        const forged = signSegments(encodeSegment(header), encodeSegment(payload), rogue.privateKey);
        const result = await outcome(body, forged);
        // Expired, not yet valid, missing claims or a bad hash would each be a fact about the token; a
        // forged token must tell nothing of the kind.
        expect(result).toBeInstanceOf(SignatureError);
        expect((result as SignatureError).code).toBe('SIGNATURE_INVALID');
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('round-trips any envelope, however it is spaced, and returns the text and what parseJsonText reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 5 }),
        fc.constantFrom(0, 1, 2, '\t', ' \n '),
        async (extra, indent) => {
          const envelope = { ...extra, input: { task: { ...extra, job_id: JOB_ID } } };
          const text = JSON.stringify(envelope, null, indent);
          const verified = await verifyCallback(makeDelivery({ key, body: Buffer.from(text) }), {
            keys: cache,
            now: clock.now,
          });
          expect(verified.envelope).toEqual(parseJsonText(text));
          expect(verified.text).toBe(text);
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('refuses every single-byte change of the body and every single-character change of the token', async () => {
    const delivery = makeDelivery({ key });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: delivery.body.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        fc.nat({ max: delivery.signature.length - 1 }),
        fc.constantFrom(...alphabet),
        async (bodyIndex, xor, tokenIndex, replacement) => {
          const body = Buffer.from(delivery.body);
          body[bodyIndex] = (body[bodyIndex] ?? 0) ^ xor;
          const bodyResult = await outcome(body, delivery.signature);
          expect(bodyResult).toBeInstanceOf(SignatureError);
          expect((bodyResult as SignatureError).code).toBe('BODY_HASH_MISMATCH');
          fc.pre(delivery.signature[tokenIndex] !== replacement);
          const token = `${delivery.signature.slice(0, tokenIndex)}${replacement}${delivery.signature.slice(tokenIndex + 1)}`;
          expect(await outcome(delivery.body, token)).toBeInstanceOf(SignatureError);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});

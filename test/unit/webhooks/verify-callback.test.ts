import { createHmac } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computeBodyHash } from '../../../src/contract/webhook-signature.js';
import { SignatureError, type SignatureReason } from '../../../src/errors.js';
import { createKeySetCache, type KeySetCache } from '../../../src/webhooks/key-set-cache.js';
import type { KeySource } from '../../../src/webhooks/key-source.js';
import { verifyCallback } from '../../../src/webhooks/verify-callback.js';
import { type JwksServer, startJwksServer } from './support/jwks-server.js';
import {
  createFakeClock,
  createSigningKey,
  type Delivery,
  encodeSegment,
  type FakeClock,
  JOB_ID,
  makeDelivery,
  makeEnvelope,
  NOW_MS,
  NOW_SECONDS,
  signSegments,
} from './support/tokens.js';

const key = createSigningKey('key-2025-01');
const rogue = createSigningKey('key-2025-01');
let server: JwksServer;
let clock: FakeClock;
let cache: KeySetCache;
let lookups: string[];
let keys: KeySource;

beforeAll(async () => {
  server = await startJwksServer([key.jwk]);
});
afterAll(() => server.close());
beforeEach(async () => {
  clock = createFakeClock();
  cache = createKeySetCache({ url: server.url, now: clock.now });
  await cache.load();
  lookups = [];
  keys = {
    getKey: (kid) => {
      lookups.push(kid);
      return cache.getKey(kid);
    },
  };
});

function verify(delivery: Pick<Delivery, 'body' | 'signature'> | { body: Uint8Array; signature: undefined }) {
  return verifyCallback({ body: delivery.body, signature: delivery.signature }, { keys, now: clock.now });
}

async function reasonOf(promise: Promise<unknown>): Promise<SignatureError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SignatureError);
  return error as SignatureError;
}

describe('verifyCallback round trip', () => {
  it('accepts a delivery signed by the service key and returns its parts', async () => {
    const delivery = makeDelivery({ key });
    const verified = await verify(delivery);
    expect(verified.jobId).toBe(JOB_ID);
    expect(verified.jti).toBe(delivery.claims.jti);
    expect(verified.kid).toBe(key.kid);
    expect(verified.expiresAt).toEqual(new Date((NOW_SECONDS - 5 + 900) * 1000));
    expect(verified.claims).toEqual(delivery.claims);
    expect(verified.envelope).toEqual(makeEnvelope());
  });

  it('accepts a token made by jose SignJWT', async () => {
    const body = Buffer.from(JSON.stringify(makeEnvelope()));
    const signature = await new SignJWT({
      jti: 'jti-jose',
      job_id: JOB_ID,
      body_hash: computeBodyHash(body),
      body_hash_alg: 'sha-256',
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: key.kid })
      .setIssuedAt(NOW_SECONDS)
      .setExpirationTime(NOW_SECONDS + 900)
      .sign(key.privateKey);
    const verified = await verify({ body, signature });
    expect(verified.jti).toBe('jti-jose');
  });

  it('verifies the raw bytes as sent: unusual spacing, \\u escapes, non-ASCII', async () => {
    const raw = `\n{ "status" :"SUCCEEDED",\t"input": {"task":{ "job_id" : "\\u0036f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "note":"caf\\u00e9 ☕"}} ,"output":{"n":12345678901234567890}}\r\n  `;
    const body = Buffer.from(raw, 'utf8');
    const verified = await verify(makeDelivery({ key, body }));
    expect(verified.jobId).toBe(JOB_ID);
    expect(verified.envelope).toMatchObject({ input: { task: { job_id: JOB_ID, note: 'café ☕' } } });
  });

  it('keeps a leading byte order mark in the text to store, and parses past it (issue 31)', async () => {
    const json = JSON.stringify(makeEnvelope());
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json, 'utf8')]);
    const verified = await verify(makeDelivery({ key, body }));
    expect(verified.text).toBe(`\uFEFF${json}`);
    expect(Buffer.from(verified.text, 'utf8').equals(body)).toBe(true);
    expect(verified.envelope).toMatchObject({ input: { task: { job_id: JOB_ID } } });
  });

  it('accepts a body given as a Uint8Array view into a larger buffer', async () => {
    const bytes = Buffer.from(JSON.stringify(makeEnvelope()));
    const backing = new Uint8Array(bytes.length + 20);
    backing.set(bytes, 10);
    const body = backing.subarray(10, 10 + bytes.length);
    await expect(verify(makeDelivery({ key, body }))).resolves.toMatchObject({ jobId: JOB_ID });
  });

  it('accepts the edges of the clock window and refuses one second past them', async () => {
    const edgeFuture = makeDelivery({ key, claims: { iat: NOW_SECONDS + 60, exp: NOW_SECONDS + 960 } });
    await expect(verify(edgeFuture)).resolves.toBeDefined();
    const pastFuture = makeDelivery({ key, claims: { iat: NOW_SECONDS + 61, exp: NOW_SECONDS + 961 } });
    expect((await reasonOf(verify(pastFuture))).code).toBe('SIGNATURE_NOT_YET_VALID');
    const lastSecond = makeDelivery({ key, claims: { iat: NOW_SECONDS - 959, exp: NOW_SECONDS - 59 } });
    await expect(verify(lastSecond)).resolves.toBeDefined();
    const expiredNow = makeDelivery({ key, claims: { iat: NOW_SECONDS - 960, exp: NOW_SECONDS - 60 } });
    expect((await reasonOf(verify(expiredNow))).code).toBe('SIGNATURE_EXPIRED');
    const exactLifetime = makeDelivery({ key, claims: { iat: NOW_SECONDS, exp: NOW_SECONDS + 900 } });
    await expect(verify(exactLifetime)).resolves.toBeDefined();
  });

  it('honours toleranceSeconds', async () => {
    const delivery = makeDelivery({ key, claims: { iat: NOW_SECONDS + 30, exp: NOW_SECONDS + 930 } });
    const strict = verifyCallback(delivery, { keys, now: clock.now, toleranceSeconds: 10 });
    expect((await reasonOf(strict)).code).toBe('SIGNATURE_NOT_YET_VALID');
    await expect(
      verifyCallback(delivery, { keys, now: clock.now, toleranceSeconds: 30 }),
    ).resolves.toBeDefined();
  });

  it('throws TypeError on a caller mistake', async () => {
    const delivery = makeDelivery({ key });
    await expect(
      verifyCallback({ body: 'x' as unknown as Uint8Array, signature: delivery.signature }, { keys }),
    ).rejects.toThrow(TypeError);
    await expect(verifyCallback(delivery, { keys, toleranceSeconds: -1 })).rejects.toThrow(TypeError);
  });
});

const hs256 = (secret: Uint8Array) => {
  const header = encodeSegment({ alg: 'HS256', typ: 'JWT', kid: key.kid });
  const payload = encodeSegment(makeDelivery({ key }).claims);
  const mac = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${mac}`;
};
const valid = () => makeDelivery({ key });
const withClaims = (claims: Record<string, unknown>) => makeDelivery({ key, claims });
const withHeader = (header: Record<string, unknown>) => makeDelivery({ key, header });
const parts = () => valid().signature.split('.') as [string, string, string];
const withSignature = (signature: string) => ({ body: valid().body, signature });
const withBody = (body: string) => makeDelivery({ key, body: Buffer.from(body) });

/** One mutation each from a valid delivery, and the reason it must be refused with. */
const NEGATIVE: Array<[string, () => { body: Uint8Array; signature: string | undefined }, SignatureReason]> =
  [
    ['missing header', () => ({ body: valid().body, signature: undefined }), 'SIGNATURE_MISSING'],
    ['empty header', () => withSignature(''), 'SIGNATURE_MISSING'],
    [
      'a changed body byte',
      () => {
        const delivery = valid();
        const body = Buffer.from(delivery.body);
        body[body.indexOf('SUCCEEDED')] = 'X'.charCodeAt(0);
        return { body, signature: delivery.signature };
      },
      'BODY_HASH_MISMATCH',
    ],
    [
      'a body with a trailing newline',
      () => ({ body: Buffer.from(`${Buffer.from(valid().body)}\n`), signature: valid().signature }),
      'BODY_HASH_MISMATCH',
    ],
    [
      'body_hash of another body',
      () => withClaims({ body_hash: computeBodyHash('{}') }),
      'BODY_HASH_MISMATCH',
    ],
    [
      'body_hash padded',
      () => withClaims({ body_hash: `${computeBodyHash(valid().body)}=` }),
      'BODY_HASH_MISMATCH',
    ],
    [
      'a rogue key under the known kid',
      () => makeDelivery({ key, signWith: rogue.privateKey }),
      'SIGNATURE_INVALID',
    ],
    [
      'the signature of another token',
      () => {
        const [h, p] = parts();
        const other = withClaims({ jti: 'another' }).signature.split('.')[2];
        return withSignature(`${h}.${p}.${other}`);
      },
      'SIGNATURE_INVALID',
    ],
    [
      'a claim changed after signing',
      () => {
        const [h, , s] = parts();
        return withSignature(`${h}.${encodeSegment({ ...valid().claims, jti: 'forged' })}.${s}`);
      },
      'SIGNATURE_INVALID',
    ],
    [
      'alg none (unsigned)',
      () => withSignature(`${encodeSegment({ alg: 'none', typ: 'JWT' })}.${encodeSegment(valid().claims)}.`),
      'SIGNATURE_BAD_ALG',
    ],
    ['alg none with a kid', () => withHeader({ alg: 'none' }), 'SIGNATURE_BAD_ALG'],
    [
      'HS256 keyed with the raw public key',
      () => withSignature(hs256(key.publicKey.export({ format: 'der', type: 'spki' }).subarray(12))),
      'SIGNATURE_BAD_ALG',
    ],
    [
      'HS256 keyed with the JWK text',
      () => withSignature(hs256(Buffer.from(JSON.stringify(key.jwk)))),
      'SIGNATURE_BAD_ALG',
    ],
    ['alg RS256', () => withHeader({ alg: 'RS256' }), 'SIGNATURE_BAD_ALG'],
    ['alg Ed25519', () => withHeader({ alg: 'Ed25519' }), 'SIGNATURE_BAD_ALG'],
    ['alg eddsa (case)', () => withHeader({ alg: 'eddsa' }), 'SIGNATURE_BAD_ALG'],
    ['alg missing', () => withHeader({ alg: undefined }), 'SIGNATURE_BAD_ALG'],
    ['typ missing', () => withHeader({ typ: undefined }), 'SIGNATURE_BAD_TYP'],
    ['typ JOSE', () => withHeader({ typ: 'JOSE' }), 'SIGNATURE_BAD_TYP'],
    ['kid missing', () => withHeader({ kid: undefined }), 'SIGNATURE_MALFORMED'],
    ['kid a number', () => withHeader({ kid: 7 }), 'SIGNATURE_MALFORMED'],
    ['crit header', () => withHeader({ crit: ['b64'], b64: false }), 'SIGNATURE_MALFORMED'],
    ['expired', () => withClaims({ iat: NOW_SECONDS - 2000, exp: NOW_SECONDS - 1100 }), 'SIGNATURE_EXPIRED'],
    [
      'exp far out (iat + 901)',
      () => withClaims({ exp: NOW_SECONDS - 5 + 901 }),
      'SIGNATURE_LIFETIME_TOO_LONG',
    ],
    ['exp a year out', () => withClaims({ exp: NOW_SECONDS + 31_536_000 }), 'SIGNATURE_LIFETIME_TOO_LONG'],
    ['exp before iat', () => withClaims({ exp: NOW_SECONDS - 10 }), 'SIGNATURE_MALFORMED'],
    [
      'iat in the future',
      () => withClaims({ iat: NOW_SECONDS + 120, exp: NOW_SECONDS + 600 }),
      'SIGNATURE_NOT_YET_VALID',
    ],
    ...(['iat', 'exp', 'jti', 'job_id', 'body_hash', 'body_hash_alg'] as const).map(
      (claim): [string, () => Delivery, SignatureReason] => [
        `claim ${claim} missing`,
        () => withClaims({ [claim]: undefined }),
        'SIGNATURE_CLAIM_MISSING',
      ],
    ),
    ['iat a string', () => withClaims({ iat: String(NOW_SECONDS) }), 'SIGNATURE_CLAIM_MISSING'],
    ['exp null', () => withClaims({ exp: null }), 'SIGNATURE_CLAIM_MISSING'],
    ['jti a number', () => withClaims({ jti: 42 }), 'SIGNATURE_CLAIM_MISSING'],
    ['jti empty', () => withClaims({ jti: '' }), 'SIGNATURE_CLAIM_MISSING'],
    ['job_id an array', () => withClaims({ job_id: [JOB_ID] }), 'SIGNATURE_CLAIM_MISSING'],
    ['body_hash an object', () => withClaims({ body_hash: {} }), 'SIGNATURE_CLAIM_MISSING'],
    ['body_hash_alg a boolean', () => withClaims({ body_hash_alg: true }), 'SIGNATURE_CLAIM_MISSING'],
    ['body_hash_alg sha-512', () => withClaims({ body_hash_alg: 'sha-512' }), 'BODY_HASH_ALG_UNSUPPORTED'],
    [
      'body_hash_alg SHA-256 (case)',
      () => withClaims({ body_hash_alg: 'SHA-256' }),
      'BODY_HASH_ALG_UNSUPPORTED',
    ],
    [
      'job_id mismatch',
      () => withClaims({ job_id: '00000000-0000-4000-8000-000000000000' }),
      'JOB_ID_MISMATCH',
    ],
    [
      'body without input.task.job_id',
      () => withBody('{"status":"SUCCEEDED","input":{"task":{}}}'),
      'JOB_ID_MISMATCH',
    ],
    ['body a JSON array', () => withBody(`[{"input":{"task":{"job_id":"${JOB_ID}"}}}]`), 'JOB_ID_MISMATCH'],
    ['body not JSON (hash matches)', () => withBody('{"input": {"task": '), 'BODY_MALFORMED_JSON'],
    [
      'body invalid UTF-8',
      () => makeDelivery({ key, body: Buffer.from([0x7b, 0xff, 0x7d]) }),
      'BODY_MALFORMED_JSON',
    ],
    ['two segments', () => withSignature(parts().slice(0, 2).join('.')), 'SIGNATURE_MALFORMED'],
    ['four segments', () => withSignature(`${valid().signature}.AAAA`), 'SIGNATURE_MALFORMED'],
    ['one segment', () => withSignature(parts()[0]), 'SIGNATURE_MALFORMED'],
    [
      'bad base64 in the header',
      () => withSignature(`${parts()[0]}*.${parts()[1]}.${parts()[2]}`),
      'SIGNATURE_MALFORMED',
    ],
    [
      'padded base64',
      () => withSignature(`${parts()[0]}==.${parts()[1]}.${parts()[2]}`),
      'SIGNATURE_MALFORMED',
    ],
    [
      'bad base64 in the signature',
      () => withSignature(`${parts()[0]}.${parts()[1]}.${parts()[2].slice(1)}+`),
      'SIGNATURE_MALFORMED',
    ],
    [
      'non-JSON header',
      () => withSignature(`${Buffer.from('{alg:EdDSA').toString('base64url')}.${parts()[1]}.${parts()[2]}`),
      'SIGNATURE_MALFORMED',
    ],
    [
      'header a JSON array',
      () => withSignature(`${encodeSegment(['EdDSA'])}.${parts()[1]}.${parts()[2]}`),
      'SIGNATURE_MALFORMED',
    ],
    [
      'non-JSON payload',
      () =>
        withSignature(
          signSegments(parts()[0], Buffer.from('not json').toString('base64url'), key.privateKey),
        ),
      'SIGNATURE_MALFORMED',
    ],
    [
      'payload JSON null',
      () => withSignature(signSegments(parts()[0], encodeSegment(null), key.privateKey)),
      'SIGNATURE_MALFORMED',
    ],
    ['empty payload segment', () => withSignature(`${parts()[0]}..${parts()[2]}`), 'SIGNATURE_MALFORMED'],
    ['empty signature segment', () => withSignature(`${parts()[0]}.${parts()[1]}.`), 'SIGNATURE_MALFORMED'],
    [
      'non-canonical signature encoding (trailing bits set)',
      () => {
        const [h, p, sig] = parts();
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const last = alphabet[alphabet.indexOf(sig.at(-1) ?? 'A') | 1];
        return withSignature(`${h}.${p}.${sig.slice(0, -1)}${last}`);
      },
      'SIGNATURE_MALFORMED',
    ],
    [
      'short signature',
      () => withSignature(`${parts()[0]}.${parts()[1]}.${parts()[2].slice(0, 80)}`),
      'SIGNATURE_MALFORMED',
    ],
    [
      'oversized header',
      () => withSignature(`${'A'.repeat(9000)}.${parts()[1]}.${parts()[2]}`),
      'SIGNATURE_MALFORMED',
    ],
  ];

describe('verifyCallback refuses one mutation at a time', () => {
  it.each(NEGATIVE)('%s', async (_name, make, reason) => {
    const delivery = make();
    const error = await reasonOf(verify(delivery));
    expect(error.code).toBe(reason);
    expect(error.transient).toBe(false);
  });

  it('checks alg before touching any key', async () => {
    for (const delivery of [
      withHeader({ alg: 'none', kid: 'new-kid' }),
      withSignature(hs256(Buffer.from(key.jwk.x))),
    ]) {
      expect((await reasonOf(verify(delivery))).code).toBe('SIGNATURE_BAD_ALG');
    }
    expect(lookups).toEqual([]);
    expect(server.hits).toBeGreaterThan(0);
  });

  it('answers an unknown kid transient after refetching the key set once (the sender retries)', async () => {
    const stranger = createSigningKey('key-unknown');
    const hits = server.hits;
    const error = await reasonOf(verify(makeDelivery({ key: stranger })));
    expect(error.code).toBe('SIGNATURE_UNKNOWN_KID');
    expect(error.transient).toBe(true);
    expect(server.hits).toBe(hits + 1);
  });

  it('answers transient while the cooldown forbids checking a new kid', async () => {
    await reasonOf(verify(makeDelivery({ key: createSigningKey('forged-1') })));
    const error = await reasonOf(verify(makeDelivery({ key: createSigningKey('forged-2') })));
    expect(error.code).toBe('SIGNATURE_UNKNOWN_KID');
    expect(error.transient).toBe(true);
  });

  it('answers KEYSET_UNAVAILABLE (transient) for an unknown kid while the key set is down', async () => {
    server.mode = 'fail';
    try {
      const error = await reasonOf(verify(makeDelivery({ key: createSigningKey('rotated') })));
      expect(error.code).toBe('KEYSET_UNAVAILABLE');
      expect(error.transient).toBe(true);
      await expect(verify(valid())).resolves.toMatchObject({ kid: key.kid });
    } finally {
      server.mode = 'ok';
    }
  });

  it('checks the signature before the times: a forged expired token is invalid, not expired', async () => {
    const times = { iat: NOW_MS / 1000 - 5000, exp: NOW_MS / 1000 - 4100 };
    const forged = makeDelivery({ key: rogue, claims: times });
    expect((await reasonOf(verify(forged))).code).toBe('SIGNATURE_INVALID');
    const genuine = makeDelivery({ key, claims: times });
    expect((await reasonOf(verify(genuine))).code).toBe('SIGNATURE_EXPIRED');
    expect(lookups).toEqual([key.kid, key.kid]);
  });
});

import { createHash, createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhookToken } from '../../../src/simulator/sign-webhook-token.js';
import {
  generateSigningKey,
  importSigningKey,
  thumbprintKid,
} from '../../../src/simulator/signing-key-ring.js';

/** A frozen key and the token it must produce (Ed25519 signatures are deterministic, RFC 8032). */
const VECTOR = {
  jwk: {
    kty: 'OKP',
    crv: 'Ed25519',
    d: '7jSO20b8Fppx4jD1uuUbccdptuar2nPrdLhYiQA73AQ',
    x: '59vFi5VwQO8PYHjjVyZHEhY_9r-Oa6jDsxG_tY8KQ8w',
  },
  kid: '0yZz5Jpy0Ed5hQbcKYfMkHaNmxYD_YzT-Lk38Ffxcsw',
  input: {
    jobId: '6f1c2c9e-3b5d-4f7a-9e21-0c8d7b6a5f43',
    body: '{"status":"SUCCEEDED"}',
    nowMs: 1_790_000_000_123,
    jti: 'c3f0e5d2-1a4b-4c6d-8e7f-9a0b1c2d3e4f',
  },
  token:
    'eyJhbGciOiJFZERTQSIsImtpZCI6IjB5Wno1SnB5MEVkNWhRYmNLWWZNa0hhTm14WURfWXpULUxrMzhGZnhjc3ciLCJ0eXAiOiJKV1QifQ.' +
    'eyJpYXQiOjE3OTAwMDAwMDAsImV4cCI6MTc5MDAwMDkwMCwianRpIjoiYzNmMGU1ZDItMWE0Yi00YzZkLThlN2YtOWEwYjFjMmQzZTRmIiwi' +
    'am9iX2lkIjoiNmYxYzJjOWUtM2I1ZC00ZjdhLTllMjEtMGM4ZDdiNmE1ZjQzIiwiYm9keV9oYXNoIjoiNng5ZmUyZXAwWkltdHdiOUlmVTUx' +
    'UVVzSWJ1RnhEd0J6cXdVNUlLUjN2cyIsImJvZHlfaGFzaF9hbGciOiJzaGEtMjU2In0.' +
    'JHKaM8KHiwkAMYZQRkI9zYv242WKgoB6yn03OuBsnGBXoixgu--yXuhEry7mArf5IH1zC6CYDpItQHzLgVNAAw',
};

function verifies(token: string, jwk: JsonWebKey): boolean {
  const [h, p, s] = token.split('.') as [string, string, string];
  return verify(
    null,
    Buffer.from(`${h}.${p}`),
    createPublicKey({ key: jwk, format: 'jwk' }),
    Buffer.from(s, 'base64url'),
  );
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

describe('signWebhookToken', () => {
  it('matches the frozen known-answer vector', () => {
    const key = importSigningKey(VECTOR.jwk);
    expect(key.kid).toBe(VECTOR.kid);
    expect(thumbprintKid(VECTOR.jwk.x)).toBe(VECTOR.kid);
    expect(signWebhookToken({ key, ...VECTOR.input }).token).toBe(VECTOR.token);
  });

  it('round-trips: header, claims and body_hash as the interface lists them', () => {
    const key = generateSigningKey();
    const body = Buffer.from('{"a":"é"}');
    const { token, claims, kid } = signWebhookToken({ key, jobId: 'job', body, nowMs: 1_000_999 });
    expect(verifies(token, key.jwk)).toBe(true);
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({
      alg: 'EdDSA',
      kid,
      typ: 'JWT',
    });
    expect(claimsOf(token)).toEqual(claims);
    expect(claims).toMatchObject({ iat: 1000, exp: 1900, job_id: 'job', body_hash_alg: 'sha-256' });
    expect(claims.body_hash).toBe(createHash('sha256').update(body).digest('base64url'));
    expect(claims.body_hash).not.toMatch(/=/);
    expect(signWebhookToken({ key, jobId: 'job', body, nowMs: 0 }).claims.jti).not.toBe(claims.jti);
  });

  it('fails verification after any one mutation', () => {
    const key = generateSigningKey();
    const { token } = signWebhookToken({ key, jobId: 'job', body: '{}', nowMs: 0 });
    const [h, p, s] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...claimsOf(token), job_id: 'other' })).toString('base64url');
    const flipped = `${s.slice(0, 5)}${s[5] === 'A' ? 'B' : 'A'}${s.slice(6)}`;
    for (const bad of [`${h}.${forged}.${s}`, `${h}.${p}.${flipped}`])
      expect(verifies(bad, key.jwk)).toBe(false);
    expect(verifies(token, generateSigningKey().jwk)).toBe(false);
  });

  it('refuses a JWK that is not an Ed25519 private key', () => {
    expect(() => importSigningKey({ kty: 'OKP', crv: 'Ed25519', x: VECTOR.jwk.x })).toThrow(TypeError);
    expect(() => importSigningKey({ kty: 'EC', crv: 'P-256', d: 'x' })).toThrow(TypeError);
  });
});

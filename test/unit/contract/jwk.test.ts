import { exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { jwkSchema, jwksSchema } from '../../../src/contract/jwk.js';

const JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  kid: 'key-2026-03',
  use: 'sig',
  alg: 'EdDSA',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
};

describe('jwkSchema', () => {
  it('accepts an Ed25519 key that jose exports, with the fields the interface lists', async () => {
    const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const exported = await exportJWK(publicKey);
    const jwk = { ...exported, kid: 'k1', use: 'sig', alg: 'EdDSA' };
    expect(jwkSchema.parse(jwk)).toEqual(jwk);
    expect(jwkSchema.parse(JWK)).toEqual(JWK);
  });

  it.each([
    ['kty', 'EC'],
    ['crv', 'X25519'],
    ['use', 'enc'],
    ['alg', 'ES256'],
    ['kid', ''],
    ['kid', undefined],
    ['x', `${JWK.x}=`],
    ['x', JWK.x.slice(1)],
    ['x', `${JWK.x.slice(1)}+`],
  ])('refuses %s = %j', (field, value) => {
    expect(jwkSchema.safeParse({ ...JWK, [field]: value }).success).toBe(false);
  });
});

describe('jwksSchema', () => {
  it('needs at least one key and keeps extra members', () => {
    expect(jwksSchema.parse({ keys: [JWK], cache: 'x' })).toEqual({ keys: [JWK], cache: 'x' });
    expect(jwksSchema.safeParse({ keys: [] }).success).toBe(false);
    expect(jwksSchema.safeParse({}).success).toBe(false);
    expect(jwksSchema.safeParse({ keys: [{ ...JWK, kty: 'RSA' }] }).success).toBe(false);
  });
});

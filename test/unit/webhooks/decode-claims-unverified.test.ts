import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeClaimsUnverified } from '../../../src/webhooks/decode-claims-unverified.js';
import { SIGNATURE_MAX_LENGTH } from '../../../src/webhooks/split-compact-jws.js';
import { createSigningKey, encodeSegment, JOB_ID, makeDelivery, NOW_SECONDS } from './support/tokens.js';

const key = createSigningKey('key-hint');

describe('decodeClaimsUnverified', () => {
  it('reads the claims of a token without checking it, even an expired one signed by anybody', () => {
    const delivery = makeDelivery({
      key,
      signWith: createSigningKey('other').privateKey,
      claims: { iat: NOW_SECONDS - 5000, exp: NOW_SECONDS - 4100 },
    });
    expect(decodeClaimsUnverified(delivery.signature)).toEqual({
      iat: NOW_SECONDS - 5000,
      exp: NOW_SECONDS - 4100,
      jti: delivery.claims.jti,
      job_id: JOB_ID,
      body_hash: delivery.claims.body_hash,
      body_hash_alg: 'sha-256',
    });
  });

  it('keeps only claims of the right type', () => {
    const token = `${encodeSegment({ alg: 'none' })}.${encodeSegment({ job_id: JOB_ID, jti: 7, iat: 'now', exp: null })}.`;
    expect(decodeClaimsUnverified(token)).toEqual({ job_id: JOB_ID });
  });

  it.each([
    ['undefined', undefined],
    ['empty', ''],
    ['two segments', 'abc.def'],
    ['a payload that is not JSON', `${encodeSegment({})}.${Buffer.from('nope').toString('base64url')}.`],
    ['a payload that is an array', `${encodeSegment({})}.${encodeSegment([JOB_ID])}.`],
    ['bad base64', 'a.b*c.d'],
    [
      'a header that is not JSON',
      `${Buffer.from('nope').toString('base64url')}.${encodeSegment({ job_id: JOB_ID })}.`,
    ],
    ['an empty header', `.${encodeSegment({ job_id: JOB_ID })}.`],
    ['five segments (JWE)', `${encodeSegment({})}.${encodeSegment({ job_id: JOB_ID })}.a.b.c`],
    [
      'a token over the verifier bound',
      `${encodeSegment({ alg: 'none' })}.${encodeSegment({ job_id: JOB_ID, pad: 'x'.repeat(SIGNATURE_MAX_LENGTH) })}.`,
    ],
  ])('gives undefined for %s', (_name, signature) => {
    expect(decodeClaimsUnverified(signature)).toBeUndefined();
  });

  it('never throws, whatever the header holds', () => {
    const segment = fc.oneof(
      fc.string(),
      fc.string().map((text) => Buffer.from(text).toString('base64url')),
      fc.jsonValue().map((value) => encodeSegment(value)),
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        const claims = decodeClaimsUnverified(segments.join('.'));
        expect(claims === undefined || typeof claims === 'object').toBe(true);
      }),
    );
  });
});

/**
 * The benchmark's webhook signing key (Ed25519) and compact JWT signing exactly as the interface's Events
 * part describes: header {alg: EdDSA, typ: JWT, kid}, claims iat, exp = iat + 15 min, jti, job_id,
 * body_hash (SHA-256 of the raw body, base64url), body_hash_alg sha-256.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';

/** A signature expires 15 minutes after iat (interface, Limits). */
export const TOKEN_LIFETIME_SECONDS = 15 * 60;

/** A fresh key: its kid, the private key as PKCS#8 PEM (to hand to the load generator) and the public JWK. */
export function createBenchKey(kid = 'bench-key-1') {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'EdDSA' };
  return {
    kid,
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }),
    publicJwk,
  };
}

/**
 * A signer for one key; `sign(claims)` returns the compact JWT for the X-Webhook-Signature header, and
 * `signBody(body, jobId)` the token of one delivery of `body` (iat now, a fresh jti).
 */
export function createTokenSigner({ kid, privateKeyPem }) {
  const privateKey = createPrivateKey(privateKeyPem);
  const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid })).toString('base64url');
  const signer = {
    sign(claims) {
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      const input = `${header}.${payload}`;
      const signature = sign(null, Buffer.from(input, 'latin1'), privateKey).toString('base64url');
      return `${input}.${signature}`;
    },
    signBody(body, jobId) {
      const iat = Math.floor(Date.now() / 1000);
      return signer.sign({
        iat,
        exp: iat + TOKEN_LIFETIME_SECONDS,
        jti: randomUUID(),
        job_id: jobId,
        body_hash: createHash('sha256').update(body).digest('base64url'),
        body_hash_alg: 'sha-256',
      });
    },
  };
  return signer;
}

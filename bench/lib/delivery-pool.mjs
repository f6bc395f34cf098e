/**
 * Pre-generated deliveries: each one a distinct job_id and jti, signed over its exact body, made before the
 * timed part. Bodies are rebuilt from the template when sent (prefix + job_id + suffix), so a pool of
 * tens of thousands of 340 KB deliveries costs only its tokens in memory.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createTokenSigner, TOKEN_LIFETIME_SECONDS } from './signing-key.mjs';

/** `count` deliveries of `template`, signed with `key`, all with iat = `iatSeconds`. */
export function createDeliveryPool({ template, key, count, iatSeconds }) {
  const signer = createTokenSigner(key);
  const base = createHash('sha256').update(template.prefix);
  const jobIds = new Array(count);
  const tokens = new Array(count);
  for (let i = 0; i < count; i += 1) {
    const jobId = randomUUID();
    const hash = base.copy().update(jobId, 'latin1').update(template.suffix).digest('base64url');
    jobIds[i] = jobId;
    tokens[i] = signer.sign({
      iat: iatSeconds,
      exp: iatSeconds + TOKEN_LIFETIME_SECONDS,
      jti: randomUUID(),
      job_id: jobId,
      body_hash: hash,
      body_hash_alg: 'sha-256',
    });
  }
  return {
    size: count,
    jobIds,
    tokens,
    /** The exact body bytes of delivery `i`. */
    body(i) {
      return Buffer.concat([template.prefix, Buffer.from(jobIds[i], 'latin1'), template.suffix]);
    },
  };
}

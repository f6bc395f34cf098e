/**
 * Standard Webhooks signing (standardwebhooks.com, "Signature scheme"): HMAC-SHA256 over
 * `${webhook-id}.${webhook-timestamp}.${body}` with the key that is the base64 part of a `whsec_` secret,
 * sent as `v1,<base64>`; several signatures, space-separated, while a secret is being rotated.
 */
import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The key bytes of a `whsec_` secret; throws TypeError (without the secret) when it is not one. */
export function webhookSecretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new TypeError('a webhook secret must start with whsec_');
  const encoded = secret.slice(SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  // Buffer.from drops what is not base64: re-encoding tells a real secret from a mistyped one.
  if (
    key.length < 24 ||
    key.length > 64 ||
    key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')
  ) {
    throw new TypeError('a webhook secret must be whsec_ followed by the base64 of 24 to 64 random bytes');
  }
  return key;
}

/** The headers of one signed request: `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
export function standardWebhookHeaders(
  id: string,
  timestampSeconds: number,
  body: string,
  keys: readonly Buffer[],
): Record<string, string> {
  const content = `${id}.${timestampSeconds}.${body}`;
  const signatures = keys.map((key) => `v1,${createHmac('sha256', key).update(content).digest('base64')}`);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}

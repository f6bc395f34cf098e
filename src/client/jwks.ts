/**
 * Webhook JWKS: GET /.well-known/jwks.json, without x-api-key and outside the pacing budget (the
 * interface lists no rate limit for it, and a receiver must reach it when a new kid appears).
 */
import { type Jwks, jwksSchema } from '../contract/jwk.js';
import { JWKS_PATH } from '../contract/webhook-signature.js';
import type { CallOptions } from './call-options.js';
import { parseResponseJson } from './parse-response-json.js';
import type { RequestCore } from './request-core.js';

/** Fetches the webhook verification key set. */
export type JwksMethod = (options?: CallOptions) => Promise<Jwks>;

/** The key-set method over one request core. */
export function createJwksMethod(deps: { request: RequestCore }): JwksMethod {
  return async (options = {}) => {
    // Parsed inside the call, while the answer's bytes still count in the answer budget.
    return deps.request(
      {
        method: 'GET',
        path: JWKS_PATH,
        auth: false,
        paced: false,
        signal: options.signal,
      },
      (response) => parseResponseJson(response, jwksSchema, `GET ${JWKS_PATH}`),
    );
  };
}

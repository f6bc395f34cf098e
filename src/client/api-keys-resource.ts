/**
 * API Keys List: GET /v1/api-keys with the master key (Endpoints part, Authentication rule 4).
 */
import { type ApiKeyList, apiKeyListSchema } from '../contract/api-keys.js';
import type { CallOptions } from './call-options.js';
import { parseResponseJson } from './parse-response-json.js';
import type { RequestCore } from './request-core.js';

/** Path of the API Keys List. */
export const API_KEYS_PATH = '/v1/api-keys';

/** API key calls. */
export interface ApiKeysResource {
  /** Every key of the account, `{ api_keys: [...] }`; needs the master key (else a 403 ServiceError). */
  list(options?: CallOptions): Promise<ApiKeyList>;
}

/** The API keys resource over one request core. */
export function createApiKeysResource(deps: { request: RequestCore; paced: boolean }): ApiKeysResource {
  return {
    async list(options = {}) {
      // Parsed inside the call, while the answer's bytes still count in the answer budget.
      return deps.request(
        {
          method: 'GET',
          path: API_KEYS_PATH,
          auth: true,
          paced: deps.paced,
          signal: options.signal,
        },
        (response) => parseResponseJson(response, apiKeyListSchema, `GET ${API_KEYS_PATH}`),
      );
    },
  };
}

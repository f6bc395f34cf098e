/**
 * Company Reveal Launcher: POST /v1/company-reveal (Endpoints part); the result is in the answer.
 */
import { stringifyJson } from '../contract/json.js';
import { type CompanyRevealRequestInput, parseCompanyRevealRequest } from '../contract/requests.js';
import type { CallOptions } from './call-options.js';
import { type JobResponse, toJobResponse } from './job-response.js';
import type { RequestCore } from './request-core.js';

/** Path of the Company Reveal Launcher. */
export const COMPANY_REVEAL_PATH = '/v1/company-reveal';

/** Launches a company reveal; resolves to the finished job. */
export type CompanyRevealMethod = (
  request: CompanyRevealRequestInput,
  options?: CallOptions,
) => Promise<JobResponse>;

/**
 * The launcher method. The request is checked with the contract first (ValidationError with the code the
 * service would answer, nothing sent); what is sent is the caller's request as given, since the service
 * echoes what it received in input.task.
 */
export function createCompanyReveal(deps: { request: RequestCore; paced: boolean }): CompanyRevealMethod {
  return async (body, options = {}) => {
    parseCompanyRevealRequest(body);
    // Parsed inside the call, while the answer's bytes still count in the answer budget.
    return deps.request(
      {
        method: 'POST',
        path: COMPANY_REVEAL_PATH,
        body: stringifyJson(body),
        auth: true,
        paced: deps.paced,
        signal: options.signal,
      },
      (response) => toJobResponse(response, `POST ${COMPANY_REVEAL_PATH}`),
    );
  };
}

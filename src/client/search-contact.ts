/**
 * Search Contact: the finder GET /v1/search/contact?job_id= (Endpoints part) and the launcher, whose path the
 * interface does not show (configurable; the simulator serves POST /v1/search/contact).
 */

import { assertJobId } from '../contract/job-id.js';
import { stringifyJson } from '../contract/json.js';
import { parseSearchContactRequest, type SearchContactRequestInput } from '../contract/requests.js';
import type { CallOptions } from './call-options.js';
import { type JobResponse, toJobResponse } from './job-response.js';
import type { RequestCore } from './request-core.js';

/** Path of the Search Contact Finder. */
export const SEARCH_CONTACT_FINDER_PATH = '/v1/search/contact';
/** Default path of the Search Contact Launcher (not shown by the interface; the simulator's choice). */
export const DEFAULT_SEARCH_CONTACT_LAUNCH_PATH = '/v1/search/contact';

/** Search Contact calls. */
export interface SearchContactResource {
  /** Re-fetches a job by its job_id (a UUID, else ValidationError VALIDATION_BAD_JOB_ID before any request). */
  find(jobId: string, options?: CallOptions): Promise<JobResponse>;
  /** Launches a contact search (validated locally first); resolves to the finished job. */
  launch(request: SearchContactRequestInput, options?: CallOptions): Promise<JobResponse>;
}

/** The Search Contact resource over one request core. */
export function createSearchContactResource(deps: {
  request: RequestCore;
  launchPath: string;
  paced: boolean;
}): SearchContactResource {
  return {
    async find(jobId, options = {}) {
      assertJobId(jobId);
      const path = `${SEARCH_CONTACT_FINDER_PATH}?job_id=${encodeURIComponent(jobId)}`;
      const response = await deps.request({
        method: 'GET',
        path,
        auth: true,
        paced: deps.paced,
        signal: options.signal,
      });
      return toJobResponse(response, `GET ${SEARCH_CONTACT_FINDER_PATH}`);
    },
    async launch(body, options = {}) {
      parseSearchContactRequest(body);
      const response = await deps.request({
        method: 'POST',
        path: deps.launchPath,
        body: stringifyJson(body),
        auth: true,
        paced: deps.paced,
        signal: options.signal,
      });
      return toJobResponse(response, `POST ${deps.launchPath}`);
    },
  };
}

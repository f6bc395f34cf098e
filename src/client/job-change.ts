/**
 * Job Change: the finder GET /v1/job/change?job_id= (Endpoints part) and the launcher, whose path the
 * interface does not show (configurable; the simulator serves POST /v1/job/change).
 */

import { assertJobId } from '../contract/job-id.js';
import { stringifyJson } from '../contract/json.js';
import { type JobChangeRequestInput, parseJobChangeRequest } from '../contract/requests.js';
import type { CallOptions } from './call-options.js';
import { type JobResponse, toJobResponse } from './job-response.js';
import type { RequestCore } from './request-core.js';

/** Path of the Job Change Finder. */
export const JOB_CHANGE_FINDER_PATH = '/v1/job/change';
/** Default path of the Job Change Launcher (not shown by the interface; the simulator's choice). */
export const DEFAULT_JOB_CHANGE_LAUNCH_PATH = '/v1/job/change';

/** Job Change calls. */
export interface JobChangeResource {
  /** Re-fetches a job by its job_id (a UUID, else ValidationError VALIDATION_BAD_JOB_ID before any request). */
  find(jobId: string, options?: CallOptions): Promise<JobResponse>;
  /** Launches a job change check (validated locally first); resolves to the finished job. */
  launch(request: JobChangeRequestInput, options?: CallOptions): Promise<JobResponse>;
}

/** The Job Change resource over one request core. */
export function createJobChangeResource(deps: {
  request: RequestCore;
  launchPath: string;
  paced: boolean;
}): JobChangeResource {
  return {
    async find(jobId, options = {}) {
      assertJobId(jobId);
      const path = `${JOB_CHANGE_FINDER_PATH}?job_id=${encodeURIComponent(jobId)}`;
      const response = await deps.request({
        method: 'GET',
        path,
        auth: true,
        paced: deps.paced,
        signal: options.signal,
      });
      return toJobResponse(response, `GET ${JOB_CHANGE_FINDER_PATH}`);
    },
    async launch(body, options = {}) {
      parseJobChangeRequest(body);
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

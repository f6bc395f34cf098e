/**
 * Job Change: the finder GET /v1/job/change?job_id= (Endpoints part) and the launcher, whose path the
 * interface does not show (configurable; the simulator serves POST /v1/job/change).
 */
import { type JobChangeRequestInput, parseJobChangeRequest } from '../contract/requests.js';
import { createJobResource, type JobResource } from './job-resource.js';
import type { RequestCore } from './request-core.js';

/** Path of the Job Change Finder. */
export const JOB_CHANGE_FINDER_PATH = '/v1/job/change';
/** Default path of the Job Change Launcher (not shown by the interface; the simulator's choice). */
export const DEFAULT_JOB_CHANGE_LAUNCH_PATH = '/v1/job/change';

/** Job Change calls. */
export type JobChangeResource = JobResource<JobChangeRequestInput>;

/** The Job Change resource over one request core. */
export function createJobChangeResource(deps: {
  request: RequestCore;
  launchPath: string;
  paced: boolean;
}): JobChangeResource {
  return createJobResource({ ...deps, finderPath: JOB_CHANGE_FINDER_PATH, validate: parseJobChangeRequest });
}

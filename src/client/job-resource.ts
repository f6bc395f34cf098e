/**
 * A job resource with a finder (GET path?job_id=) and a launcher (POST, validated locally first): the
 * shape Job Change and Search Contact share.
 */
import { assertJobId } from '../contract/job-id.js';
import { stringifyJson } from '../contract/json.js';
import type { CallOptions } from './call-options.js';
import { type JobResponse, toJobResponse } from './job-response.js';
import type { RequestCore } from './request-core.js';

/** Finder and launcher calls of one kind of job. */
export interface JobResource<Request> {
  /** Re-fetches a job by its job_id (a UUID, else ValidationError VALIDATION_BAD_JOB_ID before any request). */
  find(jobId: string, options?: CallOptions): Promise<JobResponse>;
  /** Launches a job (validated locally first, sent as given); resolves to the finished job. */
  launch(request: Request, options?: CallOptions): Promise<JobResponse>;
}

/** The resource over one request core. */
export function createJobResource<Request>(deps: {
  request: RequestCore;
  finderPath: string;
  launchPath: string;
  /** The contract's validator: throws ValidationError with the service's code. */
  validate: (request: Request) => unknown;
  paced: boolean;
}): JobResource<Request> {
  return {
    async find(jobId, options = {}) {
      assertJobId(jobId);
      // Parsed inside the call, while the answer's bytes still count in the answer budget.
      return deps.request(
        {
          method: 'GET',
          path: `${deps.finderPath}?job_id=${encodeURIComponent(jobId)}`,
          auth: true,
          paced: deps.paced,
          signal: options.signal,
        },
        (response) => toJobResponse(response, `GET ${deps.finderPath}`),
      );
    },
    async launch(body, options = {}) {
      deps.validate(body);
      // Sent as the caller gave it: the service echoes the request fields in input.task.
      // Parsed inside the call, while the answer's bytes still count in the answer budget.
      return deps.request(
        {
          method: 'POST',
          path: deps.launchPath,
          body: stringifyJson(body),
          auth: true,
          paced: deps.paced,
          signal: options.signal,
        },
        (response) => toJobResponse(response, `POST ${deps.launchPath}`),
      );
    },
  };
}

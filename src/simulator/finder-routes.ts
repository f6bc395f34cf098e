/**
 * The finders (Job Change Finder, Search Contact Finder): GET with ?job_id=, answering the stored job's
 * exact text. Missing job_id → VALIDATION_MISSING_JOB_ID_PARAMETER, not a UUID → VALIDATION_BAD_JOB_ID,
 * unknown (or a job of another kind) → 404 NOT_FOUND_JOB_NOT_FOUND.
 */
import type { Request, RequestHandler } from 'express';
import { uuidSchema } from '../contract/formats.js';
import { ValidationError } from '../errors.js';
import type { SeededRandom } from './data/seeded-random.js';
import { sendError, sendJobText } from './send-error.js';
import type { SimJobKind, SimJobStore } from './sim-job-store.js';

/** The job_id query parameter of a finder request, validated. */
export function readJobIdParameter(req: Request): string {
  const value: unknown = req.query.job_id;
  if (value === undefined || value === '') {
    throw new ValidationError('VALIDATION_MISSING_JOB_ID_PARAMETER', 'Missing job_id query parameter', [
      'job_id: is required',
    ]);
  }
  if (typeof value !== 'string' || !uuidSchema.safeParse(value).success) {
    throw new ValidationError('VALIDATION_BAD_JOB_ID', 'job_id must be a UUID', ['job_id: must be a UUID']);
  }
  return value;
}

/** What a finder needs: the jobs and the injected-error settings (--error-rate). */
export interface FinderDeps {
  readonly store: SimJobStore;
  /** Share of finder requests answered 500, 0 to 1. */
  readonly errorRate: number;
  readonly errorRandom: SeededRandom;
}

/** The finder of jobs of `kind`. */
export function createFinderHandler(kind: SimJobKind, deps: FinderDeps): RequestHandler {
  return (req, res) => {
    if (deps.errorRate > 0 && deps.errorRandom.next() < deps.errorRate) {
      sendError(res, 'INTERNAL_UNCLASSIFIED_ERROR', 'Internal error (injected by the simulator)');
      return;
    }
    const jobId = readJobIdParameter(req);
    const job = deps.store.get(jobId);
    if (job === undefined || job.kind !== kind) {
      sendError(res, 'NOT_FOUND_JOB_NOT_FOUND', `Job ${jobId} not found`);
      return;
    }
    sendJobText(res, job.text);
  };
}

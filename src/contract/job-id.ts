/**
 * job_id: a UUID (Job envelope; the finders' job_id query parameter). Checked by the client before any
 * request, by the simulator's finders, and wherever a user hands us an id (track, the admin API).
 */
import { ValidationError } from '../errors.js';

/** 8-4-4-4-12 hex digits; the interface names no UUID version, so any is accepted. */
export const JOB_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a job_id in UUID form. */
export function isJobId(value: unknown): value is string {
  return typeof value === 'string' && JOB_ID_PATTERN.test(value);
}

/**
 * Throws ValidationError VALIDATION_MISSING_JOB_ID_PARAMETER for an empty id and VALIDATION_BAD_JOB_ID for
 * anything but a UUID, the codes the service answers; a non-string is a caller's bug (TypeError).
 */
export function assertJobId(jobId: string): void {
  if (typeof jobId !== 'string') throw new TypeError(`jobId must be a string, got ${typeof jobId}`);
  if (jobId === '') {
    throw new ValidationError('VALIDATION_MISSING_JOB_ID_PARAMETER', 'job_id is missing', [
      'job_id: is required',
    ]);
  }
  if (!JOB_ID_PATTERN.test(jobId)) {
    throw new ValidationError('VALIDATION_BAD_JOB_ID', 'job_id must be a UUID', ['job_id: must be a UUID']);
  }
}

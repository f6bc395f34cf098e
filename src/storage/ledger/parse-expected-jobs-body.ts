/**
 * The body of POST /admin/expected-jobs: `{ "jobs": [{ "job_id", "kind" }, ...] }` or
 * `{ "job_ids": [...], "kind": "..." }`. Validated whole, like `hooksync track`.
 */
import { ValidationError } from '../../errors.js';
import {
  type ExpectedJobCandidate,
  isTrackableKind,
  TRACKABLE_KINDS,
  validateExpectedJobs,
} from './parse-expected-jobs.js';
import type { ExpectedJob } from './record-expected-jobs.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SHAPES = 'expected {"jobs":[{"job_id","kind"}]} or {"job_ids":[...],"kind"}';

/** Reads the body; throws ValidationError (VALIDATION_BAD_REQUEST or VALIDATION_BAD_JOB_ID) naming each bad entry. */
export function parseExpectedJobsBody(value: unknown): ExpectedJob[] {
  if (!isRecord(value))
    throw new ValidationError('VALIDATION_BAD_REQUEST', `the body must be a JSON object: ${SHAPES}`);
  const hasJobs = value.jobs !== undefined;
  const hasIds = value.job_ids !== undefined;
  if (hasJobs === hasIds)
    throw new ValidationError('VALIDATION_BAD_REQUEST', `give exactly one of jobs and job_ids: ${SHAPES}`);
  if (hasJobs) {
    if (!Array.isArray(value.jobs))
      throw new ValidationError('VALIDATION_BAD_REQUEST', `jobs must be an array: ${SHAPES}`);
    if (value.kind !== undefined) {
      throw new ValidationError(
        'VALIDATION_BAD_REQUEST',
        'kind goes inside each entry of jobs, not beside it',
      );
    }
    const candidates = value.jobs.map((entry: unknown, index): ExpectedJobCandidate => {
      const where = `jobs[${index}]`;
      if (!isRecord(entry)) return { job_id: '', kind: undefined, where: `${where} (not an object)` };
      return { job_id: stringOf(entry.job_id), kind: kindOf(entry.kind, where), where };
    });
    return validateExpectedJobs(candidates);
  }
  if (!Array.isArray(value.job_ids))
    throw new ValidationError('VALIDATION_BAD_REQUEST', `job_ids must be an array: ${SHAPES}`);
  const kind = kindOf(value.kind, 'kind');
  if (kind === undefined || !isTrackableKind(kind)) {
    throw new ValidationError('VALIDATION_BAD_REQUEST', `kind must be one of ${TRACKABLE_KINDS.join(', ')}`);
  }
  const candidates = value.job_ids.map(
    (id: unknown, index): ExpectedJobCandidate => ({
      job_id: stringOf(id),
      kind,
      where: `job_ids[${index}]`,
    }),
  );
  return validateExpectedJobs(candidates);
}

/** A non-string id is shown as its JSON text, so the error names it. */
function stringOf(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  return value === undefined ? '' : String(JSON.stringify(value));
}

function kindOf(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new ValidationError('VALIDATION_BAD_REQUEST', `${where}: kind must be a string`);
  return value;
}

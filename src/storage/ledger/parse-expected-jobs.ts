/**
 * Validation shared by every way of adding to the ledger (track, the admin API): each job_id must be a
 * UUID (Job Change / Search Contact Finder: "job_id (UUID)") and each kind one hooksync can expect.
 * A list with any bad entry is refused whole, naming every bad entry, so that nothing is half recorded.
 */
import { JOB_ID_PATTERN } from '../../contract/job-id.js';
import { ValidationError } from '../../errors.js';
import type { ExpectedJob } from './record-expected-jobs.js';

/** The kinds a user can track (a hint from the receiver may also be `unknown`). */
export const TRACKABLE_KINDS = ['job_change', 'search_contact', 'company_reveal'] as const;
export type TrackableKind = (typeof TRACKABLE_KINDS)[number];

/** The most entries one call may add (admin API body, track input). */
export const MAX_EXPECTED_JOBS_PER_CALL = 100_000;

/** One entry as read from user input, before validation. */
export interface ExpectedJobCandidate {
  /** The id as given (trimmed). */
  readonly job_id: string;
  /** The kind as given, if any. */
  readonly kind: string | undefined;
  /** Where it came from, for error messages: `line 3`, `jobs[2]`. */
  readonly where: string;
}

/** True when `value` is one of {@link TRACKABLE_KINDS}. */
export function isTrackableKind(value: unknown): value is TrackableKind {
  return typeof value === 'string' && (TRACKABLE_KINDS as readonly string[]).includes(value);
}

/**
 * Checks every candidate and returns them as ledger entries: ids lower-cased (the form the service's UUIDs
 * take) and de-duplicated, the first occurrence winning. A candidate without a kind takes `defaultKind`.
 * Throws ValidationError VALIDATION_BAD_JOB_ID (any id that is not a UUID) or VALIDATION_BAD_REQUEST
 * (a missing or unknown kind, an empty or oversized list); its issues name each bad entry.
 */
export function validateExpectedJobs(
  candidates: readonly ExpectedJobCandidate[],
  defaultKind?: TrackableKind,
): ExpectedJob[] {
  if (defaultKind !== undefined && !isTrackableKind(defaultKind)) {
    throw new TypeError(`defaultKind must be one of ${TRACKABLE_KINDS.join(', ')}`);
  }
  if (candidates.length === 0) throw new ValidationError('VALIDATION_BAD_REQUEST', 'no job ids given');
  if (candidates.length > MAX_EXPECTED_JOBS_PER_CALL) {
    throw new ValidationError(
      'VALIDATION_BAD_REQUEST',
      `too many job ids: ${candidates.length} (at most ${MAX_EXPECTED_JOBS_PER_CALL} per call)`,
    );
  }
  const badIds: string[] = [];
  const badKinds: string[] = [];
  const seen = new Set<string>();
  const jobs: ExpectedJob[] = [];
  for (const candidate of candidates) {
    const kind = candidate.kind === undefined || candidate.kind === '' ? defaultKind : candidate.kind;
    if (!JOB_ID_PATTERN.test(candidate.job_id)) {
      badIds.push(`${candidate.where}: "${truncate(candidate.job_id)}" is not a UUID`);
      continue;
    }
    if (kind === undefined) {
      badKinds.push(`${candidate.where}: no kind given (one of ${TRACKABLE_KINDS.join(', ')})`);
      continue;
    }
    if (!isTrackableKind(kind)) {
      badKinds.push(
        `${candidate.where}: kind "${truncate(kind)}" is not one of ${TRACKABLE_KINDS.join(', ')}`,
      );
      continue;
    }
    const jobId = candidate.job_id.toLowerCase();
    if (seen.has(jobId)) continue;
    seen.add(jobId);
    jobs.push({ job_id: jobId, kind });
  }
  if (badIds.length > 0) {
    throw new ValidationError(
      'VALIDATION_BAD_JOB_ID',
      summarize(badIds, 'job id is not a UUID', 'job ids are not UUIDs'),
      [...badIds, ...badKinds],
    );
  }
  if (badKinds.length > 0) {
    throw new ValidationError(
      'VALIDATION_BAD_REQUEST',
      summarize(badKinds, 'entry has no valid kind', 'entries have no valid kind'),
      badKinds,
    );
  }
  return jobs;
}

/** `1 job id is not a UUID: line 3: "x" is not a UUID` or `4 job ids are not UUIDs: first, second, ...`. */
function summarize(problems: readonly string[], one: string, many: string): string {
  const shown = problems.slice(0, 3).join('; ');
  const more = problems.length > 3 ? `; and ${problems.length - 3} more` : '';
  return `${problems.length} ${problems.length === 1 ? one : many} (nothing recorded): ${shown}${more}`;
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

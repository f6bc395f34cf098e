/**
 * Fetches one ledger entry through its finder and says what the answer means for the ledger. It writes
 * nothing: the run decides, so that a stop (bad key, no quota) marks nothing.
 */
import type { CallOptions } from '../client/call-options.js';
import type { JobResponse } from '../client/job-response.js';
import type { JobKind } from '../contract/enums.js';
import { claimedJobId } from '../contract/job-kind.js';
import { ServiceError, ValidationError } from '../errors.js';

/** The finders reconcile uses: a narrow view of the client, so any object with these methods will do. */
export interface FinderClient {
  readonly jobChange: { find(jobId: string, options?: CallOptions): Promise<JobResponse> };
  readonly searchContact: { find(jobId: string, options?: CallOptions): Promise<JobResponse> };
}

/** What one fetch means for the ledger. */
export type FetchOutcome =
  /** The finder answered with the job (any status). */
  | { readonly type: 'found'; readonly kind: 'job_change' | 'search_contact'; readonly response: JobResponse }
  /** NOT_FOUND_JOB_NOT_FOUND. */
  | { readonly type: 'not_found'; readonly message: string }
  /** Key or quota trouble: the whole run must stop, nothing marked. */
  | { readonly type: 'stop'; readonly error: ServiceError }
  /** Still 429 after the client's retries: not the job's fault, no attempt counted. */
  | { readonly type: 'rate_limited'; readonly message: string }
  /** A failure that may pass (5xx after retries, network, a malformed answer): an attempt is counted. */
  | { readonly type: 'retry'; readonly message: string }
  /** The finder refuses the id itself, or answers more than hooksync reads: retrying cannot help. */
  | { readonly type: 'invalid'; readonly message: string };

/**
 * Codes that say the key or account cannot do this at all (Authentication; Errors: 401, 402, 403), and a
 * path the service does not know (a wrong base URL): every further call would fail the same way.
 */
const STOP_CODES: ReadonlySet<string> = new Set([
  'ROUTING_INVALID_PATH_OR_METHOD',
  'NOT_FOUND_ACCOUNT_OR_KEY_NOT_FOUND',
  'NOT_FOUND_API_KEY_NOT_FOUND',
]);

/** True when `error` must stop a reconcile run at once (401, 402, 403, or a code in the set above). */
export function isRunStoppingError(error: ServiceError): boolean {
  return (
    error.status === 401 ||
    error.status === 402 ||
    error.status === 403 ||
    error.category === 'AUTH' ||
    error.category === 'PERMISSION' ||
    error.category === 'QUOTA' ||
    STOP_CODES.has(error.code)
  );
}

async function findOnce(
  client: FinderClient,
  kind: 'job_change' | 'search_contact',
  jobId: string,
  options: CallOptions,
): Promise<FetchOutcome> {
  let response: JobResponse;
  try {
    response = await (kind === 'job_change' ? client.jobChange : client.searchContact).find(jobId, options);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return classifyError(error);
  }
  const answered = claimedJobId(response.job);
  if (answered?.toLowerCase() !== jobId.toLowerCase()) {
    return { type: 'retry', message: `the ${kind} finder answered with another job (${String(answered)})` };
  }
  return { type: 'found', kind, response };
}

function classifyError(error: unknown): FetchOutcome {
  if (error instanceof ValidationError)
    return { type: 'invalid', message: `${error.code}: ${error.message}` };
  if (!(error instanceof ServiceError)) throw error;
  const message = `${error.code}${error.status > 0 ? ` (HTTP ${error.status})` : ''}: ${error.message}`;
  if (error.code === 'NOT_FOUND_JOB_NOT_FOUND') return { type: 'not_found', message };
  if (isRunStoppingError(error)) return { type: 'stop', error };
  if (error.status === 429) return { type: 'rate_limited', message };
  if (
    error.code === 'VALIDATION_BAD_JOB_ID' ||
    error.code === 'VALIDATION_MISSING_JOB_ID_PARAMETER' ||
    // Over the client's size cap: the next run would download the same cap's worth for nothing.
    error.code === 'RESPONSE_TOO_LARGE'
  ) {
    return { type: 'invalid', message };
  }
  return { type: 'retry', message };
}

/**
 * Fetches `jobId` through the finder of `kind`. An `unknown` kind tries the Job Change Finder, then the
 * Search Contact Finder when the first does not know the job. Rejects only with the caller's abort
 * reason, or for an error that is not the service's (a bug).
 */
export async function fetchExpectedJob(
  client: FinderClient,
  entry: { job_id: string; kind: JobKind },
  options: CallOptions = {},
): Promise<FetchOutcome> {
  if (entry.kind === 'job_change' || entry.kind === 'search_contact') {
    return findOnce(client, entry.kind, entry.job_id, options);
  }
  if (entry.kind !== 'unknown') throw new TypeError(`no finder for a ${entry.kind} job`);
  const first = await findOnce(client, 'job_change', entry.job_id, options);
  if (first.type !== 'not_found') return first;
  const second = await findOnce(client, 'search_contact', entry.job_id, options);
  if (second.type !== 'not_found') return second;
  return {
    type: 'not_found',
    message: 'neither the Job Change nor the Search Contact finder knows this job',
  };
}

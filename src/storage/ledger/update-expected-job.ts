/**
 * The ledger writes of a reconcile run, one statement per outcome, each committed on its own so a run
 * killed halfway keeps everything it learned. Each touches only a pending entry: a callback that closed
 * the entry meanwhile (the store marks it received) is never overwritten.
 */
import type { Kysely } from 'kysely';
import type { JobKind } from '../../contract/enums.js';
import type { Database } from '../database.js';

/** Failed attempts after which an entry is given up as failed. */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** Wait after the first failed attempt; it doubles with each further one... */
export const DEFAULT_RETRY_BASE_MS = 60_000;
/** ...up to this. */
export const DEFAULT_RETRY_MAX_MS = 6 * 3_600_000;

/** How failed attempts back off. */
export interface AttemptPolicy {
  readonly maxAttempts: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

/** The defaults above as one policy. */
export const DEFAULT_ATTEMPT_POLICY: AttemptPolicy = Object.freeze({
  maxAttempts: DEFAULT_MAX_ATTEMPTS,
  retryBaseMs: DEFAULT_RETRY_BASE_MS,
  retryMaxMs: DEFAULT_RETRY_MAX_MS,
});

/** Longest last_error kept. */
const MAX_ERROR_LENGTH = 1000;

/** The wait before the next attempt, after `attempts` failed ones (1 for the first failure). */
export function retryDelayMs(attempts: number, policy: AttemptPolicy = DEFAULT_ATTEMPT_POLICY): number {
  if (!Number.isSafeInteger(attempts) || attempts < 1)
    throw new TypeError('attempts must be a positive integer');
  return Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** Math.min(attempts - 1, 40));
}

function clip(message: string): string {
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH - 3)}...` : message;
}

function pending(db: Kysely<Database>, jobId: string) {
  return db.updateTable('expected_jobs').where('job_id', '=', jobId).where('state', '=', 'pending');
}

/** The job is stored finished: the entry is closed (the store usually did it already, in its transaction). */
export async function markReceived(db: Kysely<Database>, jobId: string, nowIso: string): Promise<void> {
  await pending(db, jobId).set({ state: 'received', next_attempt_at: null, updated_at: nowIso }).execute();
}

/** A hint of unknown kind turned out to be `kind` (the finder that knew it), whatever its state now. */
export async function recordFoundKind(db: Kysely<Database>, jobId: string, kind: JobKind): Promise<void> {
  await db
    .updateTable('expected_jobs')
    .set({ kind })
    .where('job_id', '=', jobId)
    .where('kind', '=', 'unknown')
    .execute();
}

/** The finder says RUNNING: stays pending, due again at the next run (no backoff, no attempt counted). */
export async function markStillRunning(db: Kysely<Database>, jobId: string, nowIso: string): Promise<void> {
  await pending(db, jobId)
    .set({ next_attempt_at: null, last_error: `still RUNNING at ${nowIso}`, updated_at: nowIso })
    .execute();
}

/** The finder does not know the job (NOT_FOUND_JOB_NOT_FOUND). */
export async function markNotFound(
  db: Kysely<Database>,
  jobId: string,
  message: string,
  nowIso: string,
): Promise<void> {
  await pending(db, jobId)
    .set({ state: 'not_found', next_attempt_at: null, last_error: clip(message), updated_at: nowIso })
    .execute();
}

/** Gives up at once: the entry can never be fetched (e.g. its id is refused by the finder). */
export async function markFailed(
  db: Kysely<Database>,
  jobId: string,
  message: string,
  nowIso: string,
): Promise<void> {
  await pending(db, jobId)
    .set((eb) => ({
      state: 'failed',
      attempts: eb('attempts', '+', 1),
      next_attempt_at: null,
      last_error: clip(message),
      updated_at: nowIso,
    }))
    .execute();
}

/**
 * Counts a failed attempt: the entry waits {@link retryDelayMs} before the next, or becomes failed once
 * it has failed `maxAttempts` times. Returns which.
 */
export async function recordFailedAttempt(
  db: Kysely<Database>,
  entry: { job_id: string; attempts: number },
  message: string,
  nowMs: number,
  policy: AttemptPolicy = DEFAULT_ATTEMPT_POLICY,
): Promise<'retrying' | 'failed'> {
  const attempts = entry.attempts + 1;
  const gaveUp = attempts >= policy.maxAttempts;
  await pending(db, entry.job_id)
    .set({
      state: gaveUp ? 'failed' : 'pending',
      attempts,
      next_attempt_at: gaveUp ? null : new Date(nowMs + retryDelayMs(attempts, policy)).toISOString(),
      last_error: clip(message),
      updated_at: new Date(nowMs).toISOString(),
    })
    .execute();
  return gaveUp ? 'failed' : 'retrying';
}

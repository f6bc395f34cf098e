/**
 * The working part of a reconcile run: a few workers take due entries in order, fetch each through its
 * finder (the client paces them all on one budget), store what comes back through the job store (the
 * receiver's code path, source 'finder', the exact response text), and commit each outcome at once.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { JobKind } from '../contract/enums.js';
import type { ServiceError } from '../errors.js';
import type { Database } from '../storage/database.js';
import type { StoreInput, StoreResult } from '../storage/job-store/job-store.js';
import type { ExpectedJobRow } from '../storage/ledger/list-expected-jobs.js';
import { readEntryState } from '../storage/ledger/select-due-entries.js';
import {
  type AttemptPolicy,
  markFailed,
  markNotFound,
  markReceived,
  markStillRunning,
  recordFailedAttempt,
  recordFoundKind,
} from '../storage/ledger/update-expected-job.js';
import { type FetchOutcome, type FinderClient, fetchExpectedJob } from './fetch-expected-job.js';
import type { ReconcileCounts } from './reconcile-report.js';

/** Where the run stores fetched jobs: the job store, or anything with its `store`. */
export interface ReconcileStore {
  store(input: StoreInput): Promise<StoreResult>;
}

/** Progress after each entry, for a progress bar. */
export interface ReconcileProgress {
  readonly done: number;
  readonly total: number;
  readonly counts: Readonly<ReconcileCounts>;
}

/** What the pass needs. */
export interface EntryPassDeps {
  readonly db: Kysely<Database>;
  readonly client: FinderClient;
  readonly store: ReconcileStore;
  readonly logger: Logger;
  readonly now: () => number;
  readonly policy: AttemptPolicy;
  readonly concurrency: number;
  readonly onRecovered?: ((kind: JobKind) => void) | undefined;
  readonly onProgress?: ((progress: ReconcileProgress) => void) | undefined;
}

/** Processes `entries`, updating `counts`; resolves with the error that stopped the run, if one did. */
export async function reconcileEntries(
  deps: EntryPassDeps,
  entries: readonly ExpectedJobRow[],
  counts: ReconcileCounts,
  signal: AbortSignal,
): Promise<{ stop: ServiceError | undefined }> {
  const { db, logger } = deps;
  const halt = new AbortController();
  const combined = AbortSignal.any([signal, halt.signal]);
  let stop: ServiceError | undefined;
  let next = 0;
  let done = 0;
  const nowIso = (): string => new Date(deps.now()).toISOString();

  async function apply(entry: ExpectedJobRow, outcome: FetchOutcome): Promise<void> {
    switch (outcome.type) {
      case 'found': {
        counts.fetched += 1;
        const { job, raw } = outcome.response;
        if (entry.kind === 'unknown') await recordFoundKind(db, entry.job_id, outcome.kind);
        if (job.status === 'RUNNING') {
          // Never stored as final, never polled here: the next run asks again (no backoff).
          await markStillRunning(db, entry.job_id, nowIso());
          counts.running += 1;
          counts.still_pending += 1;
          return;
        }
        const result = await deps.store.store({ envelopeText: raw, envelope: job, source: 'finder' });
        await markReceived(db, entry.job_id, nowIso());
        if (!result.duplicate) {
          counts.recovered += 1;
          counts.recovered_by_kind[result.kind] = (counts.recovered_by_kind[result.kind] ?? 0) + 1;
          logger.warn(
            { job_id: entry.job_id, kind: result.kind, status: result.status, origin: entry.origin },
            'recovered a job whose callback never arrived',
          );
          deps.onRecovered?.(result.kind);
        }
        return;
      }
      case 'not_found':
        await markNotFound(db, entry.job_id, outcome.message, nowIso());
        counts.not_found += 1;
        return;
      case 'rate_limited':
        counts.still_pending += 1;
        return;
      case 'invalid':
        await markFailed(db, entry.job_id, outcome.message, nowIso());
        counts.failed += 1;
        return;
      case 'retry': {
        const result = await recordFailedAttempt(db, entry, outcome.message, deps.now(), deps.policy);
        logger.warn({ job_id: entry.job_id, error: outcome.message, result }, 'finder fetch failed');
        if (result === 'failed') counts.failed += 1;
        else {
          counts.retrying += 1;
          counts.still_pending += 1;
        }
        return;
      }
      case 'stop':
        return;
    }
  }

  async function processEntry(entry: ExpectedJobRow): Promise<void> {
    // A callback may have closed the entry since the run selected it: look again, just before fetching.
    const fresh = await readEntryState(db, entry.job_id);
    if (fresh === undefined || fresh.state !== 'pending' || fresh.storedFinished) {
      if (fresh?.state === 'pending') await markReceived(db, entry.job_id, nowIso());
      counts.checked += 1;
      if (fresh?.state === 'received' || fresh?.storedFinished) counts.already_received += 1;
      return;
    }
    let outcome: FetchOutcome;
    try {
      outcome = await fetchExpectedJob(deps.client, entry, { signal: combined });
    } catch (error) {
      if (combined.aborted) return;
      throw error;
    }
    if (outcome.type === 'stop') {
      stop ??= outcome.error;
      halt.abort(outcome.error);
      return;
    }
    counts.checked += 1;
    await apply(entry, outcome);
  }

  async function worker(): Promise<void> {
    while (!combined.aborted) {
      const entry = entries[next];
      if (entry === undefined) return;
      next += 1;
      await processEntry(entry);
      done += 1;
      deps.onProgress?.({ done, total: entries.length, counts });
    }
  }

  const workers = Array.from({ length: Math.max(1, Math.min(deps.concurrency, entries.length)) }, () =>
    worker().catch((error: unknown) => {
      halt.abort(error);
      throw error;
    }),
  );
  const settled = await Promise.allSettled(workers);
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  return { stop };
}

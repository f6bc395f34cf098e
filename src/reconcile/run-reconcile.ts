/**
 * `reconcile`: recovers the jobs the ledger still expects. One run at a time (a lease), recorded in
 * reconcile_runs, paced by the shared client, resumable (every outcome is committed as it happens).
 * Returns a report; it throws only for a caller's misuse (TypeError).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import type { CallOptions } from '../client/call-options.js';
import type { PacingStats } from '../client/pacer.js';
import type { LearnedRateLimit } from '../client/rate-limit-learning.js';
import type { JobKind } from '../contract/enums.js';
import { ServiceError } from '../errors.js';
import type { Database } from '../storage/database.js';
import {
  createLeaseHolderId,
  DEFAULT_LEASE_TTL_MS,
  RECONCILE_LEASE_NAME,
} from '../storage/leases/acquire-lease.js';
import { DEFAULT_LEASE_POLL_MS, holdLease } from '../storage/leases/hold-lease.js';
import {
  closeStoredEntries,
  countNotFetchable,
  type DueWindow,
  selectDueEntries,
} from '../storage/ledger/select-due-entries.js';
import { type AttemptPolicy, DEFAULT_ATTEMPT_POLICY } from '../storage/ledger/update-expected-job.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { traceRun } from '../telemetry/trace-run.js';
import { type FinderClient, isRunStoppingError } from './fetch-expected-job.js';
import { type ReconcileProgress, type ReconcileStore, reconcileEntries } from './reconcile-entries.js';
import { closeAbandonedRuns, finishRunRecord, startRunRecord } from './reconcile-history.js';
import { createEmptyCounts, type ReconcileReport, type ReconcileStatus } from './reconcile-report.js';
import { reconcileAttributes } from './trace-reconcile.js';

/** Entries younger than this are left for their callback (the "grace period"). */
export const DEFAULT_OLDER_THAN_MS = 15 * 60_000;
/** Finder calls in flight at once (the client's pacer sets the rate; this only hides latency). */
export const DEFAULT_CONCURRENCY = 4;

/** The client as reconcile uses it: the finders, rate learning and pacing counters. */
export interface ReconcileClient extends FinderClient {
  learnRateLimit(options?: CallOptions): Promise<LearnedRateLimit>;
  readonly pacing: PacingStats;
}

/** Collaborators of a run. */
export interface ReconcileDeps {
  db: Kysely<Database>;
  client: ReconcileClient;
  store: ReconcileStore;
  /** Default silent. */
  logger?: Logger;
  /** Clock in epoch ms (default Date.now): ages, backoff, lease expiry, history. */
  now?: () => number;
  /** Called for each job recovered that never came by webhook (feeds hooksync_reconcile_recovered_total). */
  onRecovered?: (kind: JobKind) => void;
  /** Called after each entry. */
  onProgress?: (progress: ReconcileProgress) => void;
  /** Cancels the run; what is done stays done. */
  signal?: AbortSignal;
  /** Tracing (issue 40): the run is a span, its finder calls client spans under it. */
  telemetry?: Telemetry | undefined;
}

/** Knobs of a run. */
export interface ReconcileOptions {
  /** Grace period in ms (default {@link DEFAULT_OLDER_THAN_MS}); 0 takes every pending entry. */
  olderThanMs?: number;
  /** At most this many entries fetched. */
  limit?: number;
  /** List what would be fetched; fetch and write nothing, take no lease. */
  dryRun?: boolean;
  /** Wait for the lease instead of returning `lease_held`. */
  wait?: boolean;
  /** Default {@link DEFAULT_CONCURRENCY}. */
  concurrency?: number;
  /** Learn the key's rate from the key list first (default true). */
  learnRateLimit?: boolean;
  /** Lease holder id (default hostname:pid:random). */
  holder?: string;
  /** Lease lifetime (default 60 s), renewed every third of it while the run works. */
  leaseTtlMs?: number;
  /** Default {@link DEFAULT_LEASE_POLL_MS}. */
  leasePollMs?: number;
  /** Failed attempts before an entry is failed, and their backoff. */
  attempts?: Partial<AttemptPolicy>;
}

function assertCount(name: string, value: number | undefined, min: number): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
    throw new TypeError(`${name} must be an integer of at least ${min}, got ${String(value)}`);
  }
}

/** Runs reconcile once; see the file comment. */
export async function runReconcile(
  deps: ReconcileDeps,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  if (deps.telemetry !== undefined) {
    const { telemetry, ...untraced } = deps;
    return traceRun(
      telemetry,
      'hooksync.reconcile',
      {},
      () => runReconcile(untraced, options),
      reconcileAttributes,
    );
  }
  const olderThanMs = options.olderThanMs ?? DEFAULT_OLDER_THAN_MS;
  assertCount('olderThanMs', olderThanMs, 0);
  assertCount('limit', options.limit, 1);
  assertCount('concurrency', options.concurrency, 1);
  const ttlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  assertCount('leaseTtlMs', ttlMs, 3);
  const policy: AttemptPolicy = { ...DEFAULT_ATTEMPT_POLICY, ...options.attempts };
  assertCount('attempts.maxAttempts', policy.maxAttempts, 1);

  const { db, client } = deps;
  const logger = deps.logger ?? pino({ level: 'silent' });
  const now = deps.now ?? Date.now;
  const holder = options.holder ?? createLeaseHolderId();
  const startedMs = now();
  const counts = createEmptyCounts();
  const pacingAtStart = client.pacing;
  const window = (): DueWindow => ({
    createdBeforeIso: new Date(now() - olderThanMs).toISOString(),
    nowIso: new Date(now()).toISOString(),
  });
  const report = (status: ReconcileStatus, extra: Partial<ReconcileReport> = {}): ReconcileReport => {
    const pacing = client.pacing;
    return {
      status,
      run_id: undefined,
      holder,
      started_at: new Date(startedMs).toISOString(),
      finished_at: new Date(now()).toISOString(),
      older_than_ms: olderThanMs,
      limit: options.limit,
      pacing: pacing.limits,
      ...counts,
      rate_limited: pacing.rateLimitedResponses - pacingAtStart.rateLimitedResponses,
      requests: pacing.requestsSent - pacingAtStart.requestsSent,
      duration_ms: now() - startedMs,
      ...extra,
    };
  };

  if (options.dryRun) {
    const due = window();
    const entries = await selectDueEntries(db, due, options.limit);
    counts.not_fetchable = await countNotFetchable(db, due);
    const would_fetch = entries.map((e) => ({
      job_id: e.job_id,
      kind: e.kind,
      attempts: e.attempts,
      created_at: e.created_at,
    }));
    return report('dry_run', { would_fetch });
  }

  const held = await holdLease(
    db,
    { name: RECONCILE_LEASE_NAME, holder, ttlMs },
    { now, logger, wait: Boolean(options.wait), pollMs: options.leasePollMs, signal: deps.signal },
  );
  if ('reason' in held) {
    return held.reason === 'held'
      ? report('lease_held', { lease: { holder: held.holder, expires_at: held.expiresAt } })
      : report('aborted', { error: 'cancelled while waiting for the lease' });
  }

  const runId = randomUUID();
  const signal = deps.signal ? AbortSignal.any([deps.signal, held.lost]) : held.lost;
  let result: ReconcileReport;
  let recorded = false;
  try {
    await startRunRecord(db, { id: runId, holder, startedAt: new Date(startedMs).toISOString() });
    recorded = true;
    const abandoned = await closeAbandonedRuns(db, runId, new Date(now()).toISOString());
    if (abandoned > 0)
      logger.warn({ abandoned }, 'earlier reconcile runs ended without finishing; marked aborted');
    result = await work();
  } catch (error) {
    logger.error({ err: error }, 'reconcile run failed');
    result = report('failed', {
      run_id: runId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  try {
    if (recorded) await finishRunRecord(db, runId, result);
  } catch (error) {
    logger.error({ err: error }, 'could not record the end of the reconcile run');
  }
  await held.release();
  logRun(logger, result);
  return result;

  async function work(): Promise<ReconcileReport> {
    counts.already_received = await closeStoredEntries(db, new Date(now()).toISOString());
    const due = window();
    const entries = await selectDueEntries(db, due, options.limit);
    counts.not_fetchable = await countNotFetchable(db, due);
    counts.checked = counts.already_received + counts.not_fetchable;
    deps.onProgress?.({ done: 0, total: entries.length, counts });
    if (entries.length > 0 && options.learnRateLimit !== false) {
      const stop = await learn();
      if (stop) return stopped(stop);
    }
    if (signal.aborted) return aborted();
    const pass = await reconcileEntries(
      {
        db,
        client,
        store: deps.store,
        logger,
        now,
        policy,
        concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
        onRecovered: deps.onRecovered,
        onProgress: deps.onProgress,
      },
      entries,
      counts,
      signal,
    );
    if (pass.stop) return stopped(pass.stop);
    if (signal.aborted) return aborted();
    return report('completed', { run_id: runId });
  }

  /** Learns the key's rate (master key: the key list; otherwise the first rate-limit headers will). */
  async function learn(): Promise<ServiceError | undefined> {
    try {
      const learned = await client.learnRateLimit({ signal });
      logger.info(
        { source: learned.source, limits: learned.limits, reason: learned.reason },
        'pacing budget',
      );
    } catch (error) {
      if (signal.aborted) return undefined;
      if (error instanceof ServiceError && isRunStoppingError(error)) return error;
      logger.warn({ err: error }, 'could not learn the rate limit from the key list; pacing by the default');
    }
    return undefined;
  }

  function stopped(error: ServiceError): ReconcileReport {
    return report('stopped', {
      run_id: runId,
      stop: { code: error.code, status: error.status, message: error.message },
    });
  }

  function aborted(): ReconcileReport {
    const reason: unknown = signal.reason;
    return report('aborted', {
      run_id: runId,
      error: reason instanceof Error ? reason.message : 'cancelled',
    });
  }
}

function logRun(logger: Logger, report: ReconcileReport): void {
  const { would_fetch: _, ...summary } = report;
  if (report.recovered > 0) {
    logger.warn({ recovered: report.recovered }, 'reconcile recovered jobs whose callbacks never arrived');
  }
  logger.info(summary, `reconcile ${report.status}`);
}

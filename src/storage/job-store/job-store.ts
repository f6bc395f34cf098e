/**
 * The job store: writes verified envelopes (and quarantined bodies) with group commit, so that many
 * concurrent callbacks share one transaction and each is acknowledged only after that commit. The rows
 * derived from an envelope are written in the same transaction (inline), or queued with it and written
 * just after, many jobs at a time, by a normalizer running in the store's own commit loop (deferred).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import { StorageError } from '../../errors.js';
import type { Database } from '../database.js';
import type { NormalizedRows } from '../normalize-envelope.js';
import type { HooksyncDatabase } from '../open-database.js';
import {
  assertQuarantineInput,
  type QuarantinedBody,
  type QuarantineInput,
  writeQuarantine,
} from '../quarantine/write-quarantine.js';
import { type GroupCommitStats, GroupCommitter } from './group-committer.js';
import { type HeldRows, normalizeQueuedJobs } from './normalization-queue.js';
import { type PreparedJob, prepareJob, type StoreInput } from './prepare-job.js';
import {
  isQueuedForNormalizer,
  type NormalizationMode,
  type StoreResult,
  type WriteJobsOptions,
  writeJobs,
} from './write-jobs.js';

export type { StoreInput } from './prepare-job.js';
export type { NormalizationMode, StoreOutcome, StoreResult } from './write-jobs.js';

/** Most operations committed in one transaction. */
export const DEFAULT_MAX_BATCH = 64;
/**
 * Deferred: envelopes up to this many characters still get their rows in the storing transaction (a
 * company reveal, a job change, a short page: cheaper than a trip through the queue); larger ones are
 * queued, so that a 250-person page does not hold up the acknowledgements committed with it.
 */
export const DEFAULT_DEFER_ABOVE_CHARS = 16 * 1024;
/**
 * Deferred: what the normalizer is handed in memory (rows, or the envelope text), counted in envelope
 * characters; beyond it, it reads the envelope back from the database.
 */
export const DEFAULT_HELD_CHARS = 64 * 1024 * 1024;
/** Deferred: the longest the normalizer waits for a turn while acknowledgements keep coming. */
export const DEFAULT_NORMALIZE_MAX_DELAY_MS = 250;
/** Deferred: how often the queue is looked at anyway (jobs another process queued, a failed batch). */
export const DEFAULT_NORMALIZE_POLL_MS = 10_000;

/** Collaborators of {@link createJobStore}. */
export interface JobStoreDeps {
  readonly database: HooksyncDatabase;
  /** Clock in epoch ms (default Date.now). */
  readonly now?: () => number;
  /** Default: silent. */
  readonly logger?: Logger;
  /** Most operations per transaction (default {@link DEFAULT_MAX_BATCH}). */
  readonly maxBatch?: number;
  /**
   * When the normalized rows are written: `inline` (default), in the storing transaction; `deferred`,
   * for envelopes over {@link DEFAULT_DEFER_ABOVE_CHARS}, by the store's normalizer just after.
   */
  readonly normalization?: NormalizationMode;
  /** Deferred: called after each normalizer batch with how many jobs got their rows. */
  readonly onNormalized?: (report: { normalized: number }) => void;
  /**
   * Called after each commit that wrote a job revision (so new outbox events may be due): serve wakes its
   * dispatcher, instead of leaving the events to its next poll.
   */
  readonly onStored?: () => void;
  /**
   * Deferred: how much the normalizer is handed in memory, in envelope characters (default
   * {@link DEFAULT_HELD_CHARS}); `serve` derives it from its memory ceiling (the normalization queue's budget).
   */
  readonly heldChars?: number;
}

/** Counters of the store's group commit. */
export type JobStoreStats = GroupCommitStats;

/** Writes jobs exactly once and quarantined bodies, durably, in shared transactions. */
export interface JobStore {
  /** Stores one envelope; resolves after the commit. Rejects with StorageError (`transient` when retryable). */
  store(input: StoreInput): Promise<StoreResult>;
  /** Keeps a refused body with its reason; resolves after the commit. */
  quarantine(input: QuarantineInput): Promise<void>;
  stats(): JobStoreStats;
  /** Resolves once everything submitted so far is committed and every queued job normalized. */
  settled(): Promise<void>;
  /** Stops taking work and waits until everything submitted has committed or failed (the queue stays). */
  close(): Promise<void>;
}

/** One unit of work for the commit loop, with the submitter's clock. */
export type StoreOperation =
  | { readonly type: 'job'; readonly job: PreparedJob; readonly atMs: number }
  | {
      readonly type: 'quarantine';
      readonly input: QuarantineInput;
      readonly id: string;
      readonly atMs: number;
    };

/** Writes a batch of operations in the open transaction `trx`; one result per operation, in order. */
async function writeOperations(
  trx: Kysely<Database>,
  operations: readonly StoreOperation[],
  nowIso: string,
  options: WriteJobsOptions,
): Promise<Array<StoreResult | undefined>> {
  const jobIndexes: number[] = [];
  const jobs: PreparedJob[] = [];
  const quarantined: QuarantinedBody[] = [];
  for (const [index, operation] of operations.entries()) {
    if (operation.type === 'job') {
      jobIndexes.push(index);
      jobs.push(operation.job);
    } else {
      quarantined.push(operation);
    }
  }
  const results: Array<StoreResult | undefined> = new Array(operations.length).fill(undefined);
  const stored = await writeJobs(trx, jobs, nowIso, options);
  for (const [i, index] of jobIndexes.entries()) results[index] = stored[i];
  await writeQuarantine(trx, quarantined, nowIso, options.runner);
  return results;
}

/**
 * What the store just queued, for its normalizer, within a budget counted in envelope characters: the
 * rows that came prepared with each job (a job without them is read back from the database instead).
 */
class HeldForNormalizer implements HeldRows {
  readonly #held = new Map<string, { revision: number; job: PreparedJob }>();
  readonly #budget: number;
  #weight = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  hold(revision: number, job: PreparedJob): void {
    this.#release(job.jobId);
    if (job.rows === undefined) return;
    const weight = job.envelopeChars;
    if (this.#weight + weight > this.#budget) return;
    this.#held.set(job.jobId, { revision, job });
    this.#weight += weight;
  }

  take(jobId: string, revision: number): NormalizedRows | undefined {
    const held = this.#release(jobId);
    if (held?.revision !== revision) return undefined;
    return held.job.rows;
  }

  #release(jobId: string) {
    const held = this.#held.get(jobId);
    if (held !== undefined) {
      this.#held.delete(jobId);
      this.#weight -= held.job.envelopeChars;
    }
    return held;
  }
}

/**
 * Prepares `input` and hands the job to `submit`; a caller's mistake becomes a rejected promise. Not an
 * async function: one suspended at an await keeps every argument alive, and the input (the envelope's text
 * and parsed tree) is garbage once the job is prepared, long before its commit (issue 29).
 */
export function submitPrepared(
  input: StoreInput,
  atMs: number,
  submit: (operation: StoreOperation) => Promise<StoreResult | undefined>,
): Promise<StoreResult> {
  let job: PreparedJob;
  try {
    job = prepareJob(input, atMs);
  } catch (error) {
    return Promise.reject(error);
  }
  return submit({ type: 'job', job, atMs }) as Promise<StoreResult>;
}

/** A store that also takes jobs prepared elsewhere (the receiver's main thread) with their clock. */
export interface CommitLoopStore extends JobStore {
  /** Commits operations prepared by the caller; one promise per operation. */
  submit(operation: StoreOperation): Promise<StoreResult | undefined>;
}

/** Creates a job store over an open, migrated database. The store does not close the database. */
export function createJobStore(deps: JobStoreDeps): CommitLoopStore {
  const { database } = deps;
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? pino({ level: 'silent' });
  const mode = deps.normalization ?? 'inline';
  const held = mode === 'deferred' ? new HeldForNormalizer(deps.heldChars ?? DEFAULT_HELD_CHARS) : undefined;
  const defer =
    mode === 'deferred' ? (job: PreparedJob) => job.envelopeChars > DEFAULT_DEFER_ABOVE_CHARS : undefined;
  let closed = false;

  const runBatch = async (operations: readonly StoreOperation[]) => {
    // The batch's time is its latest submitter's: each was committed at or after it.
    const atMs = operations.reduce((latest, operation) => Math.max(latest, operation.atMs), 0);
    const results = await database.db.transaction().execute((trx) =>
      writeOperations(trx, operations, new Date(atMs).toISOString(), {
        ...(defer !== undefined ? { defer } : {}),
        runner: database.rowRunner,
      }),
    );
    if (held !== undefined && defer !== undefined) {
      let queued = false;
      for (const [index, operation] of operations.entries()) {
        const result = results[index];
        if (operation.type !== 'job' || result?.revision == null) continue;
        if (!isQueuedForNormalizer(operation.job, defer)) continue;
        held.hold(result.revision, operation.job);
        queued = true;
      }
      if (queued) committer.wakeBackground();
    }
    if (results.some((result) => result?.revision != null)) deps.onStored?.();
    return results;
  };

  const committer = new GroupCommitter<StoreOperation, StoreResult | undefined>(
    runBatch,
    deps.maxBatch ?? DEFAULT_MAX_BATCH,
    (size, elapsedMs) =>
      logger.debug({ operations: size, elapsedMs: Math.round(elapsedMs) }, 'storage batch'),
  );

  let poll: ReturnType<typeof setInterval> | undefined;
  if (held !== undefined) {
    committer.setBackgroundWork({
      maxDelayMs: DEFAULT_NORMALIZE_MAX_DELAY_MS,
      retryMs: 1000,
      async run() {
        const report = await normalizeQueuedJobs(database, { held });
        if (report.normalized > 0 || report.dropped > 0) {
          deps.onNormalized?.({ normalized: report.normalized });
          logger.debug(report, 'normalized queued jobs');
        }
        return report.more;
      },
      onError: (error) => logger.warn({ err: error }, 'could not normalize queued jobs; will retry'),
    });
    // Whatever a crash or another process left in the queue is picked up at start and then now and then.
    committer.wakeBackground();
    poll = setInterval(() => committer.wakeBackground(), DEFAULT_NORMALIZE_POLL_MS);
    poll.unref();
  }

  const closedError = () => new StorageError('the job store is closed (shutting down)', { transient: true });

  const submit = (operation: StoreOperation): Promise<StoreResult | undefined> => {
    if (closed) return Promise.reject(closedError());
    return committer.submit(operation);
  };

  return {
    submit,
    store(input) {
      if (closed) return Promise.reject(closedError());
      return submitPrepared(input, now(), submit);
    },
    async quarantine(input) {
      if (closed) throw closedError();
      assertQuarantineInput(input);
      await submit({ type: 'quarantine', input, id: randomUUID(), atMs: now() });
    },
    stats: () => committer.stats(),
    settled: () => committer.idle(),
    async close() {
      closed = true;
      clearInterval(poll);
      committer.stopBackground();
      await committer.idle();
    },
  };
}

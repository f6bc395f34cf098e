/**
 * The job store: writes verified envelopes (and quarantined bodies) with group commit, so that many
 * concurrent callbacks share one transaction and each is acknowledged only after that commit.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import { StorageError } from '../errors.js';
import type { Database, JobKind } from './database.js';
import { type GroupCommitStats, GroupCommitter } from './group-committer.js';
import { insertRows } from './insert-rows.js';
import { textOrNull } from './normalize-values.js';
import type { HooksyncDatabase } from './open-database.js';
import { type PreparedJob, prepareJob, type StoreInput } from './prepare-job.js';
import { type StoreResult, writeJobs } from './write-jobs.js';

export type { StoreInput } from './prepare-job.js';
export type { StoreOutcome, StoreResult } from './write-jobs.js';

/** Most operations committed in one transaction. */
export const DEFAULT_MAX_BATCH = 64;

/** A body refused by the receiver, kept with the reason. */
export interface QuarantineInput {
  /** A SignatureReason or another refusal code. */
  readonly reason: string;
  readonly detail?: string;
  /** input.task.job_id as the body claimed it, if it could be read. */
  readonly claimedJobId?: string;
  readonly kind?: JobKind | null;
  readonly contentType?: string;
  /** The raw body bytes, as received. */
  readonly body: Uint8Array;
}

/** Collaborators of {@link createJobStore}. */
export interface JobStoreDeps {
  readonly database: HooksyncDatabase;
  /** Clock in epoch ms (default Date.now). */
  readonly now?: () => number;
  /** Default: silent. */
  readonly logger?: Logger;
  /** Most operations per transaction (default {@link DEFAULT_MAX_BATCH}). */
  readonly maxBatch?: number;
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
  /** Stops taking work and waits until everything submitted has committed or failed. */
  close(): Promise<void>;
}

type Operation =
  | { readonly type: 'job'; readonly job: PreparedJob }
  | { readonly type: 'quarantine'; readonly input: QuarantineInput; readonly id: string };

function quarantineRow(operation: Extract<Operation, { type: 'quarantine' }>, nowIso: string) {
  const { input } = operation;
  return {
    id: operation.id,
    reason: textOrNull(input.reason) ?? '',
    detail: textOrNull(input.detail),
    claimed_job_id: textOrNull(input.claimedJobId),
    kind: input.kind ?? null,
    content_type: textOrNull(input.contentType),
    body: Buffer.from(input.body),
    received_at: nowIso,
  };
}

/** Writes a batch of operations in the open transaction `trx`; one result per operation, in order. */
async function writeOperations(
  trx: Kysely<Database>,
  operations: readonly Operation[],
  nowIso: string,
): Promise<Array<StoreResult | undefined>> {
  const jobIndexes: number[] = [];
  const jobs: PreparedJob[] = [];
  const quarantined = [];
  for (const [index, operation] of operations.entries()) {
    if (operation.type === 'job') {
      jobIndexes.push(index);
      jobs.push(operation.job);
    } else {
      quarantined.push(quarantineRow(operation, nowIso));
    }
  }
  const results: Array<StoreResult | undefined> = new Array(operations.length).fill(undefined);
  const stored = await writeJobs(trx, jobs, nowIso);
  for (const [i, index] of jobIndexes.entries()) results[index] = stored[i];
  await insertRows(trx, 'quarantine', quarantined);
  return results;
}

/** Creates a job store over an open, migrated database. The store does not close the database. */
export function createJobStore(deps: JobStoreDeps): JobStore {
  const { database } = deps;
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? pino({ level: 'silent' });
  let closed = false;

  const runBatch = (operations: readonly Operation[]): Promise<Array<StoreResult | undefined>> =>
    database.db
      .transaction()
      .execute((trx) => writeOperations(trx, operations, new Date(now()).toISOString()));

  const committer = new GroupCommitter<Operation, StoreResult | undefined>(
    runBatch,
    deps.maxBatch ?? DEFAULT_MAX_BATCH,
    (size, elapsedMs) =>
      logger.debug({ operations: size, elapsedMs: Math.round(elapsedMs) }, 'storage batch'),
  );

  const closedError = () => new StorageError('the job store is closed (shutting down)', { transient: true });

  return {
    async store(input) {
      if (closed) throw closedError();
      const job = prepareJob(input, now());
      const result = await committer.submit({ type: 'job', job });
      return result!;
    },
    async quarantine(input) {
      if (closed) throw closedError();
      if (typeof input?.reason !== 'string' || input.reason === '') {
        throw new TypeError('quarantine: reason must be a non-empty string');
      }
      if (!(input.body instanceof Uint8Array)) throw new TypeError('quarantine: body must be a Uint8Array');
      await committer.submit({ type: 'quarantine', input, id: randomUUID() });
    },
    stats: () => committer.stats(),
    async close() {
      closed = true;
      await committer.idle();
    },
  };
}

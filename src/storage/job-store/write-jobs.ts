/**
 * The statements that store a batch of jobs inside one transaction, set-based (a handful of statements per
 * batch, not per job). Every decision is made by a unique key in the database (deliveries.jti, jobs.job_id)
 * through INSERT … ON CONFLICT, never by reading first, so retries, duplicates and concurrent replicas
 * converge on one stored job (design.md, "Exactly once").
 */
import type { Insertable, Kysely } from 'kysely';
import type { JobKind } from '../../contract/enums.js';
import { isTerminalStatus } from '../../contract/enums.js';
import type { Database } from '../database.js';
import { updateLedger } from '../ledger/update-ledger.js';
import { epochSeconds, jtiKey } from './jti-key.js';
import { enqueueNormalization, type QueueEntry } from './normalization-queue.js';
import { planRounds } from './plan-rounds.js';
import { MISSING_STATUS, type PreparedJob } from './prepare-job.js';
import { recordOutboxEvents, recordTraceParents } from './record-outbox-events.js';
import { CHUNKED_ROW_RUNNER, type RowRunner } from './row-runner.js';
import { type RowsToWrite, writeNormalizedRows } from './write-normalized-rows.js';

/**
 * When a stored job's normalized rows are written: in the storing transaction (`inline`), or, for large
 * envelopes, just after it by the normalizer, through the normalization queue (`deferred`).
 */
export type NormalizationMode = 'inline' | 'deferred';

/** What storing one envelope did. */
export type StoreOutcome = 'stored' | 'updated' | 'duplicate' | 'replay';

/** The answer of {@link JobStore.store}, once committed. */
export interface StoreResult {
  readonly job_id: string;
  readonly kind: JobKind;
  /** The status of the copy just received (the stored one may be a finished copy kept over it). */
  readonly status: string;
  /** stored: new job; updated: a RUNNING copy upgraded; duplicate: already stored; replay: jti seen before. */
  readonly outcome: StoreOutcome;
  /** True for duplicate and replay: nothing new was written. */
  readonly duplicate: boolean;
  /** Whether the copy fits its kind's schema. */
  readonly schemaValid: boolean;
  /** The job's revision this write made (1 stored, more updated); null when nothing was written. */
  readonly revision: number | null;
  /**
   * On a replay, the bytes {@link StoreInput.envelopeBytes} handed over, given back by a store that took
   * them to another thread (the caller's copy is gone): a reused jti's body is kept as evidence.
   */
  readonly envelopeBytes?: Uint8Array;
}

/** `bytes` as a Buffer without copying (a PreparedJob that crossed threads holds a plain Uint8Array). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A job as upsertJobs writes it. */
type JobRow = Insertable<Database['jobs']> & {
  readonly job_id: string;
  readonly status: string;
  readonly envelope_z: Buffer;
};

/** What a finished copy replaces of a stored one (with its revision, one more); received_at stays. */
const REPLACED_COLUMNS = [
  'kind',
  'status',
  'context_id',
  'start_date',
  'stop_date',
  'envelope_z',
  'payload_hash',
  'source',
  'schema_valid',
  'schema_issues',
  'updated_at',
] as const satisfies readonly (keyof JobRow)[];

/** Stored statuses a received copy may replace: RUNNING, or no status at all (never a finished one). */
const UPGRADABLE_STATUSES = ['RUNNING', MISSING_STATUS];

function resultOf(job: PreparedJob, outcome: StoreOutcome, revision: number | null = null): StoreResult {
  return {
    job_id: job.jobId,
    kind: job.kind,
    status: job.status,
    outcome,
    duplicate: outcome === 'duplicate' || outcome === 'replay',
    schemaValid: job.schemaCheck.valid,
    revision,
  };
}

/** Records the jtis of `jobs` (unique within the call); returns the jtis that were new. */
async function recordDeliveries(
  trx: Kysely<Database>,
  jobs: readonly PreparedJob[],
  nowIso: string,
  runner: RowRunner,
) {
  const receivedAtS = epochSeconds(Date.parse(nowIso), 'down');
  const keyed = jobs
    .filter((job) => job.jti !== undefined)
    .map((job) => ({
      jti: job.jti!,
      key: jtiKey(job.jti!),
      expiresAtS: epochSeconds(job.tokenExpiresAtMs, 'up'),
    }));
  const rows = keyed.map(({ key, expiresAtS }) => ({
    jti_key: key,
    expires_at_s: expiresAtS,
    received_at_s: receivedAtS,
  }));
  // Row by row (SQLite): a row that changed nothing met a recorded jti. Else RETURNING names the new ones.
  const changed = await runner.changes?.(trx, rows, insertDeliveries);
  if (changed !== undefined) return new Set(keyed.filter((_, i) => changed[i]! > 0).map(({ jti }) => jti));
  const fresh = await runner.run(trx, rows, insertDeliveriesReturning);
  const freshKeys = new Set(fresh.map((row) => Buffer.from(row.jti_key).toString('hex')));
  return new Set(keyed.filter(({ key }) => freshKeys.has(key.toString('hex'))).map(({ jti }) => jti));
}

/**
 * Inserts the jobs (job_ids unique within the call), upgrading a stored RUNNING or status-less copy with a
 * received finished one; anything else is left alone (a duplicate). Returns each written job's revision:
 * 1 for an insert, more for an upgrade, absent for a duplicate.
 */
async function upsertJobs(
  trx: Kysely<Database>,
  jobs: readonly PreparedJob[],
  nowIso: string,
  runner: RowRunner,
) {
  const rows = jobs.map(
    (job): JobRow => ({
      job_id: job.jobId,
      kind: job.kind,
      status: job.status,
      context_id: job.contextId,
      start_date: job.startDate,
      stop_date: job.stopDate,
      envelope_z: asBuffer(job.envelopeZ),
      payload_hash: job.payloadHash,
      source: job.source,
      schema_valid: job.schemaCheck.valid ? 1 : 0,
      schema_issues: job.schemaCheck.issues,
      received_at: nowIso,
      updated_at: nowIso,
      revision: 1,
    }),
  );
  // Row by row (SQLite, one writer): insert what is new, then upgrade the stored copies a finished one may
  // replace, one statement each (rare: a retry or a RUNNING copy's successor). Postgres: one upsert per
  // chunk, whose row locks are taken in job_id order (two replicas' batches cannot deadlock).
  const inserted = await runner.changes?.(trx, rows, insertNewJobRows);
  if (inserted === undefined) {
    const written = await runner.run(trx, rows, upsertJobRows);
    return new Map(written.map((row) => [row.job_id, row.revision]));
  }
  const revisions = new Map<string, number>();
  for (const [index, row] of rows.entries()) {
    if (inserted[index]! > 0) revisions.set(row.job_id, 1);
    else if (!UPGRADABLE_STATUSES.includes(row.status)) {
      const upgraded = await upgradeJob(trx, row);
      if (upgraded !== undefined) revisions.set(row.job_id, upgraded.revision);
    }
  }
  return revisions;
}

// The statements below are module functions, the same on every call, so that the row runner compiles each
// once (they capture nothing that changes: every value is in the rows or a constant).

function insertDeliveries(t: Kysely<Database>, chunk: readonly Insertable<Database['deliveries']>[]) {
  return t
    .insertInto('deliveries')
    .values(chunk)
    .onConflict((oc) => oc.column('jti_key').doNothing());
}

function insertDeliveriesReturning(
  t: Kysely<Database>,
  chunk: readonly Insertable<Database['deliveries']>[],
) {
  return insertDeliveries(t, chunk).returning('jti_key');
}

function insertNewJobRows(t: Kysely<Database>, chunk: readonly Insertable<Database['jobs']>[]) {
  return t
    .insertInto('jobs')
    .values(chunk)
    .onConflict((oc) => oc.column('job_id').doNothing());
}

function upsertJobRows(t: Kysely<Database>, chunk: readonly Insertable<Database['jobs']>[]) {
  return t
    .insertInto('jobs')
    .values(chunk)
    .onConflict((oc) =>
      oc
        .column('job_id')
        .doUpdateSet((eb) => ({
          ...Object.fromEntries(REPLACED_COLUMNS.map((column) => [column, eb.ref(`excluded.${column}`)])),
          revision: eb('jobs.revision', '+', 1),
        }))
        // A terminal status is never overwritten by RUNNING (design.md, "Exactly once").
        .where('jobs.status', 'in', UPGRADABLE_STATUSES)
        .where('excluded.status', 'not in', UPGRADABLE_STATUSES),
    )
    .returning(['job_id', 'revision']);
}

/**
 * What upsertJobRows does to a row already stored, for a received finished copy (the caller checks its
 * status): the stored copy is replaced when it is RUNNING or status-less. Resolves with its new revision, or
 * undefined when the stored copy stays (a duplicate).
 */
function upgradeJob(trx: Kysely<Database>, row: JobRow) {
  return trx
    .updateTable('jobs')
    .set((eb) => ({
      ...Object.fromEntries(REPLACED_COLUMNS.map((column) => [column, row[column]])),
      revision: eb('jobs.revision', '+', 1),
    }))
    .where('job_id', '=', row.job_id)
    .where('status', 'in', UPGRADABLE_STATUSES)
    .returning('revision')
    .executeTakeFirst();
}

/** One round: job_ids and jtis unique. Returns the outcome of each job, in order. */
async function writeRound(
  trx: Kysely<Database>,
  jobs: readonly PreparedJob[],
  nowIso: string,
  defer: (job: PreparedJob) => boolean,
  runner: RowRunner,
) {
  const freshJtis = await recordDeliveries(trx, jobs, nowIso, runner);
  const outcomes = new Map<PreparedJob, { outcome: StoreOutcome; revision: number | null }>();
  const live = jobs.filter((job) => {
    const replay = job.jti !== undefined && !freshJtis.has(job.jti);
    if (replay) outcomes.set(job, { outcome: 'replay', revision: null });
    return !replay;
  });
  const revisions = await upsertJobs(trx, live, nowIso, runner);
  const written: Array<{ job: PreparedJob; revision: number }> = [];
  for (const job of live) {
    const revision = revisions.get(job.jobId);
    const outcome: StoreOutcome =
      revision === undefined ? 'duplicate' : revision === 1 ? 'stored' : 'updated';
    outcomes.set(job, { outcome, revision: revision ?? null });
    if (revision !== undefined) written.push({ job, revision });
  }
  const now: RowsToWrite[] = [];
  const later: QueueEntry[] = [];
  for (const { job, revision } of written) {
    const rows = isQueuedForNormalizer(job, defer) ? undefined : job.rows;
    if (rows === undefined) later.push({ job_id: job.jobId, revision, stored_at: nowIso });
    else now.push({ jobId: job.jobId, rows, storedAt: nowIso, replace: revision > 1 });
  }
  await writeNormalizedRows(trx, now, runner);
  await enqueueNormalization(trx, later, runner);
  // Onward delivery is part of the commit (design.md): one event per written revision and destination.
  await recordOutboxEvents(
    trx,
    written.map(({ job }) => job),
    nowIso,
    runner,
  );
  await recordTraceParents(trx, written);
  const finishedIds = live.filter((job) => isTerminalStatus(job.status)).map((job) => job.jobId);
  const newRunning = live.filter(
    (job) => job.status === 'RUNNING' && outcomes.get(job)?.outcome === 'stored',
  );
  await updateLedger(trx, finishedIds, newRunning, nowIso, runner);
  return outcomes;
}

/** Whether writeJobs queues `job` for the normalizer instead of writing its rows: it has none, or `defer` says so. */
export function isQueuedForNormalizer(job: PreparedJob, defer: (job: PreparedJob) => boolean): boolean {
  return job.rows === undefined || defer(job);
}

/** Knobs of {@link writeJobs}. */
export interface WriteJobsOptions {
  /** Jobs to queue for the normalizer instead of writing their rows now (default: those without rows). */
  readonly defer?: (job: PreparedJob) => boolean;
  /** How statements over many rows run (default: multi-row chunks; the database's own is faster). */
  readonly runner?: RowRunner;
}

/**
 * Stores `jobs` in the open transaction `trx`, as if one after the other in the given order; `nowIso`
 * stamps every row written. Returns one result per job, in order.
 */
export async function writeJobs(
  trx: Kysely<Database>,
  jobs: readonly PreparedJob[],
  nowIso: string,
  options: WriteJobsOptions = {},
): Promise<StoreResult[]> {
  const defer = options.defer ?? (() => false);
  const runner = options.runner ?? CHUNKED_ROW_RUNNER;
  const results: StoreResult[] = new Array(jobs.length);
  const plan = planRounds(jobs);
  for (const index of plan.replays) results[index] = resultOf(jobs[index]!, 'replay');
  for (const round of plan.rounds) {
    // Rows locked in job_id order: two replicas' batches cannot deadlock on each other's jobs.
    const ordered = [...round].sort((a, b) => (jobs[a]!.jobId < jobs[b]!.jobId ? -1 : 1));
    const outcomes = await writeRound(
      trx,
      ordered.map((index) => jobs[index]!),
      nowIso,
      defer,
      runner,
    );
    for (const index of ordered) {
      const { outcome, revision } = outcomes.get(jobs[index]!)!;
      results[index] = resultOf(jobs[index]!, outcome, revision);
    }
  }
  return results;
}

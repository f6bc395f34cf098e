/**
 * The normalization queue (migration 003). `hooksync serve` stores a job and queues it in one
 * transaction, acknowledges, and derives its rows and schema check just after, here, many jobs per
 * transaction. A queue row goes away only in the transaction that writes its job's rows, so a crash in
 * between leaves it for the next start. On Postgres, replicas share the queue: each takes rows the others
 * have not locked.
 */
import type { Kysely } from 'kysely';
import type { JobKind } from '../../contract/enums.js';
import { parseJsonText, withoutByteOrderMark } from '../../contract/json.js';
import { chunkForParameters } from '../chunk-for-parameters.js';
import type { Database } from '../database.js';
import { decodeEnvelope } from '../envelope-codec.js';
import { type NormalizedRows, normalizeEnvelope } from '../normalize-envelope.js';
import type { HooksyncDatabase } from '../open-database.js';
import type { NormalizationQueueTable } from './job-store-tables.js';
import { CHUNKED_ROW_RUNNER, type RowRunner } from './row-runner.js';
import { type RowsToWrite, writeNormalizedRows } from './write-normalized-rows.js';

/** Queue rows a batch takes at most. */
export const DEFAULT_NORMALIZE_BATCH = 64;
/**
 * A batch takes no more jobs once it has run this long. Large on purpose: the persons indexes on person_id
 * and linkedin_url take random keys, so a transaction's cost is mostly the index pages it dirties, which
 * many pages of persons share. Measured on a 250-person page, 50 connections: a 25 ms budget
 * acknowledged 185 pages/s but wrote the rows of only 60/s (the queue grew); 300 ms acknowledged 148/s
 * and wrote 161/s (the queue emptied), p99 no worse.
 */
export const DEFAULT_NORMALIZE_BUDGET_MS = 300;
/** Jobs whose envelopes are read back in one query. */
const READ_CHUNK = 8;

/** A job to normalize, as queued. */
export type QueueEntry = Omit<NormalizationQueueTable, 'id'>;

/** Rows the caller still holds (it derived them before storing the job), so that a batch need not. */
export interface HeldRows {
  /** The rows of `jobId` at `revision`, removed from the holder; undefined when not held. */
  take(jobId: string, revision: number): NormalizedRows | undefined;
}

/** Knobs of {@link normalizeQueuedJobs}. */
export interface NormalizeBatchOptions {
  /** Default {@link DEFAULT_NORMALIZE_BATCH}. */
  readonly maxJobs?: number;
  /** Default {@link DEFAULT_NORMALIZE_BUDGET_MS}. */
  readonly budgetMs?: number;
  readonly held?: HeldRows;
}

/** What one batch did. */
export interface NormalizeBatchReport {
  /** Jobs whose rows were written (and left the queue). */
  readonly normalized: number;
  /** Queue rows whose job no longer exists (purged), removed. */
  readonly dropped: number;
  /** True when the batch stopped with queue rows left that it had taken in hand. */
  readonly more: boolean;
}

/** Queues jobs just written in the open transaction `trx` (a job upgraded later is queued again). */
export async function enqueueNormalization(
  trx: Kysely<Database>,
  entries: readonly QueueEntry[],
  runner: RowRunner = CHUNKED_ROW_RUNNER,
): Promise<void> {
  await runner.run(trx, entries, insertQueueEntries);
}

/** One function for every call, so that the row runner compiles its statement once. */
function insertQueueEntries(t: Kysely<Database>, chunk: readonly QueueEntry[]) {
  return t.insertInto('normalization_queue').values(chunk);
}

/**
 * Normalizes the oldest queued jobs in one transaction: writes their rows (held ones, or derived again
 * from the stored envelope), replacing any an earlier revision left, and removes their queue rows.
 */
export async function normalizeQueuedJobs(
  database: Pick<HooksyncDatabase, 'db' | 'dialect' | 'rowRunner'>,
  options: NormalizeBatchOptions = {},
): Promise<NormalizeBatchReport> {
  const maxJobs = options.maxJobs ?? DEFAULT_NORMALIZE_BATCH;
  const budgetMs = options.budgetMs ?? DEFAULT_NORMALIZE_BUDGET_MS;
  if (!Number.isInteger(maxJobs) || maxJobs < 1) throw new TypeError('maxJobs must be a positive integer');
  return database.db.transaction().execute(async (trx) => {
    let query = trx.selectFrom('normalization_queue').selectAll().orderBy('id').limit(maxJobs);
    // Replicas sharing a Postgres database each take rows the others have not (SQLite has one writer).
    if (database.dialect === 'postgres') query = query.forUpdate().skipLocked();
    const rows = await query.execute();
    // A job queued more than once (upgraded meanwhile) is normalized once, from its latest revision.
    const latest = new Map<string, QueueEntry & { ids: Array<number | string> }>();
    for (const row of rows) {
      const seen = latest.get(row.job_id);
      if (seen === undefined) latest.set(row.job_id, { ...row, ids: [row.id] });
      else {
        seen.ids.push(row.id);
        if (row.revision > seen.revision)
          Object.assign(seen, { revision: row.revision, stored_at: row.stored_at });
      }
    }
    const entries = [...latest.values()];
    const started = performance.now();
    const report = { normalized: 0, dropped: 0, more: rows.length === maxJobs };
    for (let start = 0; start < entries.length; start += READ_CHUNK) {
      if (start > 0 && performance.now() - started > budgetMs) {
        report.more = true;
        break;
      }
      const chunk = entries.slice(start, start + READ_CHUNK);
      await normalizeChunk(trx, chunk, options.held, report, database.rowRunner);
      for (const ids of chunkForParameters(
        chunk.flatMap((entry) => entry.ids),
        1,
      )) {
        await trx.deleteFrom('normalization_queue').where('id', 'in', ids).execute();
      }
    }
    return report;
  });
}

/** Normalizes the jobs of `chunk` (each once). */
async function normalizeChunk(
  trx: Kysely<Database>,
  chunk: readonly QueueEntry[],
  held: HeldRows | undefined,
  report: { normalized: number; dropped: number },
  runner: RowRunner,
): Promise<void> {
  const derived = new Map<string, NormalizedRows>();
  const missing: string[] = [];
  for (const entry of chunk) {
    const rows = held?.take(entry.job_id, entry.revision);
    if (rows === undefined) missing.push(entry.job_id);
    else derived.set(entry.job_id, rows);
  }
  if (missing.length > 0) {
    // Not held (a crash, another process): derived again from the envelope as stored.
    const stored = await trx
      .selectFrom('jobs')
      .select(['job_id', 'kind', 'envelope_z'])
      .where('job_id', 'in', missing)
      .execute();
    for (const job of stored) {
      derived.set(job.job_id, rowsFromText(decodeEnvelope(job.envelope_z), job.kind, job.job_id));
    }
  }
  const writes: RowsToWrite[] = [];
  for (const entry of chunk) {
    const rows = derived.get(entry.job_id);
    if (rows === undefined) {
      report.dropped += 1;
      continue;
    }
    // Always replace: a job normalized once may be queued again (an upgrade raced its normalization).
    writes.push({ jobId: entry.job_id, rows, storedAt: entry.stored_at, replace: true });
  }
  await writeNormalizedRows(trx, writes, runner);
  report.normalized += writes.length;
}

/** The rows of a stored envelope (none when the text is not JSON, which the store never writes). */
export function rowsFromText(text: string, kind: JobKind, jobId: string): NormalizedRows {
  let envelope: unknown;
  try {
    envelope = parseJsonText(withoutByteOrderMark(text));
  } catch {
    envelope = undefined;
  }
  return normalizeEnvelope(envelope, kind, jobId, '');
}

/** Normalizes batch after batch until the queue holds nothing it had when this began. */
export async function normalizeAllQueuedJobs(
  database: Pick<HooksyncDatabase, 'db' | 'dialect' | 'rowRunner'>,
): Promise<number> {
  let normalized = 0;
  for (;;) {
    const report = await normalizeQueuedJobs(database, { maxJobs: 256, budgetMs: 1000 });
    normalized += report.normalized;
    if (!report.more) return normalized;
  }
}

/** When the oldest queued job was stored, or undefined when the queue is empty. */
export async function oldestQueuedAt(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db
    .selectFrom('normalization_queue')
    .select((eb) => eb.fn.min('stored_at').as('oldest'))
    .executeTakeFirst();
  return row?.oldest ?? undefined;
}

/** Queue entries waiting (a job upgraded before its rows were written counts once per revision). */
export async function countQueued(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('normalization_queue')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

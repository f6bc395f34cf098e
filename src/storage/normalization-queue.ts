/**
 * The normalization queue (migration 003). `hooksync serve` stores a job and queues it in one
 * transaction, acknowledges, and derives its rows and schema check just after, here, many jobs per
 * transaction. A queue row goes away only in the transaction that writes its job's rows, so a crash in
 * between leaves it for the next start. On Postgres, replicas share the queue: each takes rows the others
 * have not locked.
 */
import type { Kysely } from 'kysely';
import { parseJsonText } from '../contract/json.js';
import type { Database, JobKind, NormalizationQueueTable } from './database.js';
import { chunkForParameters } from './insert-rows.js';
import type { HooksyncDatabase } from './open-database.js';
import { checkSchema } from './prepare-job.js';
import { type RowsSource, writeNormalizedRows } from './write-normalized-rows.js';

/** Queue rows a batch takes at most. */
export const DEFAULT_NORMALIZE_BATCH = 64;
/** A batch stops taking more jobs once it has spent this long deriving rows (it still writes them). */
export const DEFAULT_NORMALIZE_BUDGET_MS = 25;
/** Jobs whose envelopes are read back in one query. */
const READ_CHUNK = 8;

/** A job to normalize, as queued. */
export type QueueEntry = Omit<NormalizationQueueTable, 'id'>;

/** Envelope texts the caller still holds (it just stored them), so that a batch need not read them back. */
export interface HeldEnvelopes {
  /** The text of `jobId` at `revision`, removed from the holder; undefined when not held. */
  take(jobId: string, revision: number): { kind: JobKind; text: string } | undefined;
}

/** Knobs of {@link normalizeQueuedJobs}. */
export interface NormalizeBatchOptions {
  /** Default {@link DEFAULT_NORMALIZE_BATCH}. */
  readonly maxJobs?: number;
  /** Default {@link DEFAULT_NORMALIZE_BUDGET_MS}. */
  readonly budgetMs?: number;
  readonly held?: HeldEnvelopes;
}

/** What one batch did. */
export interface NormalizeBatchReport {
  /** Jobs whose rows were written (and left the queue). */
  readonly normalized: number;
  /** Of those, envelopes that do not fit their kind's schema (jobs.schema_valid set to 0). */
  readonly invalid: number;
  /** Queue rows whose job no longer exists (purged), removed. */
  readonly dropped: number;
  /** True when the batch stopped with queue rows left that it had taken in hand. */
  readonly more: boolean;
}

/** Queues jobs just written in the open transaction `trx` (a job upgraded later is queued again). */
export async function enqueueNormalization(
  trx: Kysely<Database>,
  entries: readonly QueueEntry[],
): Promise<void> {
  for (const chunk of chunkForParameters(entries, 3)) {
    await trx.insertInto('normalization_queue').values(chunk).execute();
  }
}

/**
 * Normalizes the oldest queued jobs in one transaction: derives their rows (replacing any an earlier
 * revision left), records a failed schema check on the job, and removes their queue rows.
 */
export async function normalizeQueuedJobs(
  database: Pick<HooksyncDatabase, 'db' | 'dialect'>,
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
    const report = { normalized: 0, invalid: 0, dropped: 0, more: rows.length === maxJobs };
    for (let start = 0; start < entries.length; start += READ_CHUNK) {
      if (start > 0 && performance.now() - started > budgetMs) {
        report.more = true;
        break;
      }
      const chunk = entries.slice(start, start + READ_CHUNK);
      await normalizeChunk(trx, chunk, options.held, report);
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
  held: HeldEnvelopes | undefined,
  report: { normalized: number; invalid: number; dropped: number },
): Promise<void> {
  const texts = new Map<string, { kind: JobKind; text: string; revision: number }>();
  const missing: string[] = [];
  for (const entry of chunk) {
    const text = held?.take(entry.job_id, entry.revision);
    if (text === undefined) missing.push(entry.job_id);
    else texts.set(entry.job_id, { ...text, revision: entry.revision });
  }
  if (missing.length > 0) {
    const rows = await trx
      .selectFrom('jobs')
      .select(['job_id', 'kind', 'envelope', 'revision'])
      .where('job_id', 'in', missing)
      .execute();
    for (const row of rows) {
      texts.set(row.job_id, { kind: row.kind, text: row.envelope, revision: row.revision });
    }
  }
  const sources: RowsSource[] = [];
  for (const entry of chunk) {
    const stored = texts.get(entry.job_id);
    if (stored === undefined) {
      report.dropped += 1;
      continue;
    }
    let envelope: unknown;
    try {
      envelope = parseJsonText(stored.text);
    } catch {
      // Cannot happen for what the store wrote; an edited row still leaves the queue, flagged.
      envelope = undefined;
    }
    const check = checkSchema(envelope, stored.kind);
    if (!check.valid) {
      report.invalid += 1;
      await trx
        .updateTable('jobs')
        .set({ schema_valid: 0, schema_issues: check.issues })
        .where('job_id', '=', entry.job_id)
        // A newer copy stored meanwhile (another replica) is queued again and checked on its own.
        .where('revision', '=', stored.revision)
        .execute();
    }
    // Always replace: a job normalized once may be queued again (an upgrade raced its normalization).
    sources.push({
      jobId: entry.job_id,
      kind: stored.kind,
      envelope,
      storedAt: entry.stored_at,
      replace: true,
    });
  }
  await writeNormalizedRows(trx, sources);
  report.normalized += sources.length;
}

/** Normalizes batch after batch until the queue holds nothing it had when this began. */
export async function normalizeAllQueuedJobs(
  database: Pick<HooksyncDatabase, 'db' | 'dialect'>,
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

/** Which of `jobIds` are still waiting for their rows (and their schema check). */
export async function queuedAmong(db: Kysely<Database>, jobIds: readonly string[]): Promise<Set<string>> {
  const queued = new Set<string>();
  for (const ids of chunkForParameters(jobIds, 1)) {
    const rows = await db
      .selectFrom('normalization_queue')
      .select('job_id')
      .where('job_id', 'in', ids)
      .execute();
    for (const row of rows) queued.add(row.job_id);
  }
  return queued;
}

/** Queue entries waiting (a job upgraded before its rows were written counts once per revision). */
export async function countQueued(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('normalization_queue')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

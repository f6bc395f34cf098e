/**
 * Writes the rows derived from stored envelopes (persons, companies, job changes) in an open transaction,
 * replacing those an earlier revision of the same job left. Used by the storing transaction itself
 * (inline) and by the normalizer that works through the normalization queue (deferred).
 */
import type { Kysely } from 'kysely';
import type { Database, JobKind } from './database.js';
import { chunkForParameters, insertRows } from './insert-rows.js';
import { normalizeEnvelope } from './normalize-envelope.js';

/** One job whose rows are to be written. */
export interface RowsSource {
  readonly jobId: string;
  readonly kind: JobKind;
  /** The envelope, parsed with parseJsonText. */
  readonly envelope: unknown;
  /** When this revision of the job was stored (jobs.updated_at): the rows' received_at. */
  readonly storedAt: string;
  /** True when rows of an earlier revision may exist: they are deleted first. */
  readonly replace: boolean;
}

/** Derives and inserts the rows of `jobs` (each job once). */
export async function writeNormalizedRows(trx: Kysely<Database>, jobs: readonly RowsSource[]): Promise<void> {
  const replaced = jobs.filter((job) => job.replace).map((job) => job.jobId);
  for (const ids of chunkForParameters(replaced, 1)) {
    await trx.deleteFrom('persons').where('job_id', 'in', ids).execute();
    await trx.deleteFrom('companies').where('job_id', 'in', ids).execute();
    await trx.deleteFrom('job_changes').where('job_id', 'in', ids).execute();
  }
  const normalized = jobs.map((job) => normalizeEnvelope(job.envelope, job.kind, job.jobId, job.storedAt));
  await insertRows(
    trx,
    'persons',
    normalized.flatMap((rows) => rows.persons),
  );
  await insertRows(
    trx,
    'companies',
    normalized.flatMap((rows) => rows.companies),
  );
  await insertRows(
    trx,
    'job_changes',
    normalized.flatMap((rows) => rows.jobChanges),
  );
}

/**
 * Writes the rows derived from stored envelopes (persons, companies, job changes) in an open transaction,
 * replacing those an earlier revision of the same job left. Used by the storing transaction itself
 * (inline) and by the normalizer that works through the normalization queue (deferred).
 */
import type { Insertable, Kysely } from 'kysely';
import { chunkForParameters } from '../chunk-for-parameters.js';
import type { Database } from '../database.js';
import type { NormalizedRows } from '../normalize-envelope.js';
import { asBuffer } from '../person-texts.js';
import { insertRows } from './insert-rows.js';
import { CHUNKED_ROW_RUNNER, type RowRunner } from './row-runner.js';

/** One job whose rows are to be written. */
export interface RowsToWrite {
  readonly jobId: string;
  /** Derived by normalizeEnvelope; their received_at is set here. */
  readonly rows: NormalizedRows;
  /** When this revision of the job was stored (jobs.updated_at): the rows' received_at. */
  readonly storedAt: string;
  /** True when rows of an earlier revision may exist: they are deleted first. */
  readonly replace: boolean;
}

/** Inserts the rows of `jobs` (each job once), dated when each job was stored. */
export async function writeNormalizedRows(
  trx: Kysely<Database>,
  jobs: readonly RowsToWrite[],
  runner: RowRunner = CHUNKED_ROW_RUNNER,
): Promise<void> {
  const replaced = jobs.filter((job) => job.replace).map((job) => job.jobId);
  for (const ids of chunkForParameters(replaced, 1)) {
    await trx.deleteFrom('persons').where('job_id', 'in', ids).execute();
    await trx.deleteFrom('companies').where('job_id', 'in', ids).execute();
    await trx.deleteFrom('job_changes').where('job_id', 'in', ids).execute();
    await trx.deleteFrom('person_texts').where('job_id', 'in', ids).execute();
  }
  const stamp = <T extends { received_at: string }>(job: RowsToWrite, rows: readonly T[]): T[] =>
    rows.map((row) => ({ ...row, received_at: job.storedAt }));
  await insertRows(
    trx,
    'persons',
    jobs.flatMap((job) => stamp(job, job.rows.persons)),
    runner,
  );
  await insertRows(
    trx,
    'companies',
    jobs.flatMap((job) => stamp(job, job.rows.companies)),
    runner,
  );
  await insertRows(
    trx,
    'job_changes',
    jobs.flatMap((job) => stamp(job, job.rows.jobChanges)),
    runner,
  );
  const texts = jobs.flatMap((job) =>
    job.rows.personTexts.map((row) => ({ job_id: row.job_id, abouts_z: asBuffer(row.abouts_z) })),
  );
  await runner.run(trx, texts, insertPersonTexts);
}

/** One function for every call, so that the row runner compiles its statement once. */
function insertPersonTexts(t: Kysely<Database>, chunk: readonly Insertable<Database['person_texts']>[]) {
  return t.insertInto('person_texts').values(chunk);
}

/**
 * Writing many records of one object with a Bulk API 2.0 ingest upsert job (shared/docs/salesforce-api.md §1.3):
 * create the job, upload the CSV, close it, poll it until it completes, read its successful and failed
 * results, and match them back by the key column (Salesforce does not keep the rows' order). The job is
 * recorded once closed (`salesforce_bulk_jobs`, migration 019) under a fingerprint of what was uploaded, so the
 * same upload attempted again, after the attempt's timeout or a restart, polls that job instead of uploading
 * its rows a second time; the record is dropped once the results are read. Blank cells leave a field as it is
 * (nothing empty is ever sent), and a Contact names its Account in an `Account.<key>` column.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { CrmError } from '../../errors.js';
import type { Database } from '../../storage/database.js';
import { whenUnlocked } from '../when-unlocked.js';
import { classifyRecordErrors } from './salesforce-answer.js';
import type { SalesforceClient } from './salesforce-client.js';
import type { CollectionsWrite, RecordOutcome } from './write-collections.js';

/** Calls one job takes at the least (create, upload, close, one poll, two results): what a dry run counts. */
export const BULK_JOB_CALLS = 6;

/** Waits between polls of a running job, in ms; the last repeats. */
export const BULK_POLL_DELAYS_MS: readonly number[] = [250, 500, 1_000, 2_000, 5_000, 10_000];

/** Where the jobs closed and not yet read are kept. */
export interface BulkJobStore {
  find(fingerprint: string): Promise<string | undefined>;
  save(fingerprint: string, job: { object: string; jobId: string; records: number }): Promise<void>;
  forget(fingerprint: string): Promise<void>;
}

/** The destination's rows of `salesforce_bulk_jobs`. */
export function bulkJobStore(db: Kysely<Database>, destination: string, now: () => number): BulkJobStore {
  return {
    async find(fingerprint) {
      const row = await db
        .selectFrom('salesforce_bulk_jobs')
        .select('job_id')
        .where('destination', '=', destination)
        .where('fingerprint', '=', fingerprint)
        .executeTakeFirst();
      return row?.job_id;
    },
    save: (fingerprint, job) =>
      whenUnlocked(async () => {
        await db
          .insertInto('salesforce_bulk_jobs')
          .values({
            destination,
            fingerprint,
            object: job.object,
            job_id: job.jobId,
            records: job.records,
            created_at: new Date(now()).toISOString(),
          })
          .onConflict((oc) =>
            oc.columns(['destination', 'fingerprint']).doUpdateSet((eb) => ({
              job_id: eb.ref('excluded.job_id'),
              records: eb.ref('excluded.records'),
              created_at: eb.ref('excluded.created_at'),
            })),
          )
          .execute();
      }),
    forget: (fingerprint) =>
      whenUnlocked(async () => {
        await db
          .deleteFrom('salesforce_bulk_jobs')
          .where('destination', '=', destination)
          .where('fingerprint', '=', fingerprint)
          .execute();
      }),
  };
}

/** A job's information, the part read. */
const jobInfoSchema = z.looseObject({
  id: z.string().min(1),
  state: z.string(),
  errorMessage: z.string().optional(),
});

/** The CSV a job uploads: the key, every field any record sends, the parent's key; blank where a record has none. */
export function bulkCsv(write: CollectionsWrite): string {
  const fields = [...new Set(write.records.flatMap((record) => Object.keys(record.fields)))]
    .filter((name) => name !== write.keyField && name !== 'Id')
    .sort();
  const parent = write.records.find((record) => record.parent !== undefined)?.parent;
  const parentColumn = parent === undefined ? undefined : `${parent.relationship}.${parent.keyField}`;
  const header = [write.keyField, ...fields, ...(parentColumn === undefined ? [] : [parentColumn])];
  const rows = write.records.map((record) => [
    record.key,
    ...fields.map((name) => {
      const value = record.fields[name];
      return value === undefined ? '' : String(value);
    }),
    ...(parentColumn === undefined ? [] : [record.parent?.key ?? '']),
  ]);
  return stringify([header, ...rows], { record_delimiter: '\n' });
}

/** One record's result row: `sf__Error` is `CODE:message:fields --` (several run together). */
function failureOf(text: string): RecordOutcome {
  const errors = text
    .split(/ --(?:\s|$)/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const at = part.indexOf(':');
      return at < 0
        ? { statusCode: 'UNKNOWN_ERROR', message: part, fields: [] }
        : { statusCode: part.slice(0, at), message: part.slice(at + 1), fields: [] };
    });
  const trouble = classifyRecordErrors(errors);
  return {
    ok: false,
    retry: trouble.kind === 'retry',
    error: trouble.error,
    duplicateOf: trouble.kind === 'fail' ? trouble.duplicateOf : [],
  };
}

function rowsOf(csv: string): Array<Record<string, string>> {
  if (csv.trim() === '') return [];
  return parse(csv, { columns: true, bom: true, skip_empty_lines: true }) as Array<Record<string, string>>;
}

/**
 * Upserts `write.records` (keys unique, none known by Id) by `write.keyField` in one job, or resumes the job
 * already closed for the very same upload; one outcome per record, in order. Throws CrmError for trouble that
 * is not a record's (a job Salesforce failed whole is a `fail`, which the core splits).
 */
export async function writeBulk(
  client: SalesforceClient,
  store: BulkJobStore,
  write: CollectionsWrite,
  signal: AbortSignal,
  pollDelaysMs: readonly number[] = BULK_POLL_DELAYS_MS,
): Promise<RecordOutcome[]> {
  const csv = bulkCsv(write);
  const fingerprint = createHash('sha256')
    .update(`${write.object}\u0000${write.keyField}\u0000${csv}`)
    .digest('hex');
  const path = (jobId: string, rest = '') => `jobs/ingest/${encodeURIComponent(jobId)}${rest}`;
  const info = (jobId: string) => client.json(jobInfoSchema, { method: 'GET', path: path(jobId) }, signal);

  let jobId = await store.find(fingerprint);
  if (jobId !== undefined) {
    // The same rows were uploaded before: poll that job, unless Salesforce no longer has it or it ended badly.
    const known = await info(jobId).catch((error: unknown) => {
      if (error instanceof CrmError && error.status === 404) return undefined;
      throw error;
    });
    if (known === undefined || known.state === 'Failed' || known.state === 'Aborted') {
      await store.forget(fingerprint);
      jobId = undefined;
    }
  }
  if (jobId === undefined) {
    const created = await client.json(
      jobInfoSchema,
      {
        method: 'POST',
        path: 'jobs/ingest',
        json: {
          object: write.object,
          operation: 'upsert',
          externalIdFieldName: write.keyField,
          contentType: 'CSV',
          lineEnding: 'LF',
        },
      },
      signal,
    );
    jobId = created.id;
    await client.request({ method: 'PUT', path: path(jobId, '/batches'), csv }, signal);
    await client.json(
      jobInfoSchema,
      { method: 'PATCH', path: path(jobId), json: { state: 'UploadComplete' } },
      signal,
    );
    await store.save(fingerprint, { object: write.object, jobId, records: write.records.length });
  }

  for (let poll = 0; ; poll += 1) {
    const state = await info(jobId);
    if (state.state === 'JobComplete') break;
    if (state.state === 'Failed' || state.state === 'Aborted') {
      await store.forget(fingerprint);
      throw new CrmError(null, {
        kind: 'fail',
        error: `Salesforce's Bulk job ${jobId} for ${write.object} ended ${state.state}: ${state.errorMessage ?? 'no reason given'}`,
      });
    }
    const delay = pollDelaysMs[Math.min(poll, pollDelaysMs.length - 1)] ?? 1_000;
    try {
      await sleep(delay, undefined, { signal });
    } catch (error) {
      throw new CrmError(
        null,
        { kind: 'retry', error: `timed out while Bulk job ${jobId} ran (the next attempt polls it again)` },
        { cause: error },
      );
    }
  }

  const results = async (which: string) =>
    rowsOf(
      (
        await client.request(
          { method: 'GET', path: path(jobId, `/${which}`), headers: { accept: 'text/csv' } },
          signal,
        )
      ).text,
    );
  const byKey = new Map<string, RecordOutcome>();
  for (const row of await results('successfulResults')) {
    const key = row[write.keyField]?.toLowerCase();
    if (key !== undefined && row.sf__Id)
      byKey.set(key, { ok: true, id: row.sf__Id, created: row.sf__Created === 'true' });
  }
  for (const row of await results('failedResults')) {
    const key = row[write.keyField]?.toLowerCase();
    if (key !== undefined) byKey.set(key, failureOf(row.sf__Error ?? ''));
  }
  await store.forget(fingerprint);
  return write.records.map(
    (record) =>
      byKey.get(record.key.toLowerCase()) ?? {
        ok: false,
        retry: true,
        error: `Salesforce's Bulk job ${jobId} returned no result for ${record.key}`,
        duplicateOf: [],
      },
  );
}

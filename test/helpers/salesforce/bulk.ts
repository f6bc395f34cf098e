/**
 * Bulk API 2.0 ingest (Bulk API 2.0 Developer Guide): create a job, upload its CSV, mark it UploadComplete,
 * poll it (InProgress for `pollsInProgress` reads, then JobComplete), read successful, failed and unprocessed
 * results as CSV. Rows are saved through the same checks as the REST writes; a blank cell leaves a field
 * untouched, `#N/A` clears it, `Account.<ExtId>` links the parent (shared/docs/salesforce-api.md §1.3, §2).
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { notFoundBody, sfErrors } from './errors.js';
import type { Answer, RestContext } from './rest.js';
import type { SObjectName } from './schema.js';
import { isSObject } from './soql.js';

type JobState = 'Open' | 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';

/** One ingest job as the stand-in keeps it. */
export interface IngestJob {
  id: string;
  object: SObjectName;
  operation: 'insert' | 'upsert' | 'update';
  externalIdFieldName: string | undefined;
  state: JobState;
  createdAtMs: number;
  apiVersion: string;
  csv: string | undefined;
  polls: number;
  errorMessage: string | undefined;
  processed: number;
  failed: number;
  successful: string[][];
  failedRows: string[][];
  header: string[];
}

/** The jobs of one stand-in. */
export class BulkJobs {
  readonly jobs = new Map<string, IngestJob>();
  #next = 0;
  constructor(public pollsInProgress: number) {}

  info(job: IngestJob): Record<string, unknown> {
    return {
      id: job.id,
      operation: job.operation,
      object: job.object,
      createdById: '005Hs000000001AAAA',
      createdDate: new Date(job.createdAtMs).toISOString().replace('Z', '+0000'),
      systemModstamp: new Date(job.createdAtMs).toISOString().replace('Z', '+0000'),
      state: job.state,
      ...(job.externalIdFieldName === undefined ? {} : { externalIdFieldName: job.externalIdFieldName }),
      concurrencyMode: 'Parallel',
      contentType: 'CSV',
      apiVersion: Number(job.apiVersion.slice(1)),
      contentUrl: `services/data/${job.apiVersion}/jobs/ingest/${job.id}/batches`,
      lineEnding: 'LF',
      columnDelimiter: 'COMMA',
      ...(job.state === 'JobComplete' || job.state === 'Failed'
        ? {
            numberRecordsProcessed: job.processed,
            numberRecordsFailed: job.failed,
            retries: 0,
            totalProcessingTime: 1,
          }
        : {}),
      ...(job.errorMessage === undefined ? {} : { errorMessage: job.errorMessage }),
    };
  }

  /** POST jobs/ingest. */
  create(ctx: RestContext, body: unknown): Answer {
    const input = (body ?? {}) as Record<string, unknown>;
    const object = input.object;
    if (typeof object !== 'string' || !isSObject(object))
      return {
        status: 400,
        body: sfErrors(`Entity '${String(object)}' is not supported by the Bulk API.`, 'INVALIDENTITY'),
      };
    const operation = input.operation;
    if (operation !== 'insert' && operation !== 'upsert' && operation !== 'update')
      return { status: 400, body: sfErrors(`Invalid operation: ${String(operation)}`, 'INVALIDJOB') };
    const ext = input.externalIdFieldName;
    if (operation === 'upsert') {
      const key = typeof ext === 'string' ? ctx.store.schema[object].get(ext) : undefined;
      if (key === undefined || !key.idLookup)
        return {
          status: 400,
          body: sfErrors(
            `Field name provided, ${String(ext)} is not an External ID or indexed field for ${object}`,
            'INVALIDJOB',
          ),
        };
    }
    if (input.contentType !== undefined && input.contentType !== 'CSV')
      return { status: 400, body: sfErrors('Only CSV is supported', 'INVALIDJOB') };
    this.#next += 1;
    const job: IngestJob = {
      id: `750Hs${String(this.#next).padStart(10, '0')}AAA`,
      object,
      operation,
      externalIdFieldName: operation === 'upsert' ? String(ext) : undefined,
      state: 'Open',
      createdAtMs: ctx.now(),
      apiVersion: ctx.version,
      csv: undefined,
      polls: 0,
      errorMessage: undefined,
      processed: 0,
      failed: 0,
      successful: [],
      failedRows: [],
      header: [],
    };
    this.jobs.set(job.id, job);
    return { status: 200, body: this.info(job) };
  }

  /** PUT jobs/ingest/{id}/batches (text/csv): 201; one upload per job, as Bulk 2.0 allows. */
  upload(id: string, csv: string, contentType: string | undefined): Answer {
    const job = this.jobs.get(id);
    if (!job) return { status: 404, body: notFoundBody() };
    if (!contentType?.startsWith('text/csv'))
      return { status: 400, body: sfErrors('Unsupported content type; expecting text/csv', 'INVALIDJOB') };
    if (job.state !== 'Open' || job.csv !== undefined)
      return { status: 409, body: sfErrors(`Job ${id} is not open for uploads`, 'INVALIDJOBSTATE') };
    job.csv = csv;
    return { status: 201 };
  }

  /** PATCH jobs/ingest/{id}: `UploadComplete` or `Aborted`. */
  close(id: string, body: unknown): Answer {
    const job = this.jobs.get(id);
    if (!job) return { status: 404, body: notFoundBody() };
    const state = (body as { state?: unknown } | undefined)?.state;
    if (state === 'Aborted' && ['Open', 'UploadComplete', 'InProgress'].includes(job.state)) {
      job.state = 'Aborted';
      return { status: 200, body: this.info(job) };
    }
    if (state !== 'UploadComplete' || job.state !== 'Open')
      return {
        status: 409,
        body: sfErrors(
          `Cannot change the state of job ${id} from ${job.state} to ${String(state)}`,
          'INVALIDJOBSTATE',
        ),
      };
    job.state = job.csv === undefined ? 'Failed' : 'UploadComplete';
    if (job.csv === undefined) job.errorMessage = 'No data was uploaded to the job';
    return { status: 200, body: this.info(job) };
  }

  /** GET jobs/ingest/{id}: moves the job along, one read at a time, and runs it when it completes. */
  get(ctx: RestContext, id: string): Answer {
    const job = this.jobs.get(id);
    if (!job) return { status: 404, body: notFoundBody() };
    if (job.state === 'UploadComplete' || job.state === 'InProgress') {
      job.polls += 1;
      if (job.polls > this.pollsInProgress) run(ctx, job);
      else job.state = 'InProgress';
    }
    return { status: 200, body: this.info(job) };
  }

  /** GET jobs/ingest/{id}/successfulResults | failedResults | unprocessedrecords. */
  results(id: string, which: string): Answer {
    const job = this.jobs.get(id);
    if (!job) return { status: 404, body: notFoundBody() };
    if (job.state !== 'JobComplete' && job.state !== 'Failed' && job.state !== 'Aborted')
      return { status: 409, body: sfErrors(`Job ${id} is not complete`, 'INVALIDJOBSTATE') };
    const csv = (head: string[], rows: string[][]) => ({
      status: 200,
      text: stringify([head, ...rows], { quoted: true }),
      contentType: 'text/csv',
    });
    if (which === 'successfulResults') return csv(['sf__Id', 'sf__Created', ...job.header], job.successful);
    if (which === 'failedResults') return csv(['sf__Id', 'sf__Error', ...job.header], job.failedRows);
    if (which === 'unprocessedrecords') {
      const unprocessed =
        job.state === 'JobComplete'
          ? []
          : (parse(job.csv ?? '', { relax_column_count: true }) as string[][]).slice(1);
      return csv(job.header, unprocessed);
    }
    return { status: 404, body: notFoundBody() };
  }
}

function run(ctx: RestContext, job: IngestJob): void {
  let rows: string[][];
  try {
    rows = parse(job.csv ?? '', { bom: false, relax_column_count: false }) as string[][];
  } catch (error) {
    job.state = 'Failed';
    job.errorMessage = `ClientInputError : ${(error as Error).message}`;
    return;
  }
  const header = rows[0] ?? [];
  job.header = header;
  const schema = ctx.store.schema[job.object];
  const relation = (name: string) =>
    [...schema.values()].find((d) => d.relationshipName === name.split('.')[0]);
  const badColumn = header.find((name) =>
    name.includes('.') ? relation(name) === undefined : !schema.has(name),
  );
  if (
    badColumn !== undefined ||
    (job.externalIdFieldName !== undefined && !header.includes(job.externalIdFieldName))
  ) {
    job.state = 'Failed';
    job.errorMessage =
      badColumn !== undefined
        ? `InvalidBatch : Field name not found : ${badColumn}`
        : `InvalidBatch : The External ID field ${job.externalIdFieldName} is missing`;
    return;
  }
  const keyIndex = job.externalIdFieldName === undefined ? -1 : header.indexOf(job.externalIdFieldName);
  const keyField = job.externalIdFieldName === undefined ? undefined : schema.get(job.externalIdFieldName);
  const norm = (value: string) => (keyField?.caseSensitive ? value : value.toLowerCase());
  const counts = new Map<string, number>();
  for (const row of rows.slice(1))
    if (keyIndex >= 0)
      counts.set(norm(row[keyIndex] ?? ''), (counts.get(norm(row[keyIndex] ?? '')) ?? 0) + 1);
  for (const row of rows.slice(1)) {
    const input: Record<string, unknown> = {};
    header.forEach((name, index) => {
      const cell = row[index] ?? '';
      if (cell === '') return; // blank: left as it is
      if (name.includes('.')) {
        const [rel, lookup] = name.split('.');
        input[rel!] = { [lookup!]: cell };
      } else input[name] = cell === '#N/A' ? null : cell;
    });
    const fail = (code: string, message: string, fields: string[]) => {
      job.failed += 1;
      job.failedRows.push(['', `${code}:${message}:${fields.join(',')} --`, ...row]);
    };
    job.processed += 1;
    const key = keyIndex >= 0 ? (row[keyIndex] ?? '') : '';
    if (keyField !== undefined && key === '') {
      fail('MISSING_ARGUMENT', `${keyField.name} not specified`, [keyField.name]);
      continue;
    }
    if (keyField !== undefined && (counts.get(norm(key)) ?? 0) > 1) {
      fail('DUPLICATE_VALUE', `Duplicate external id specified: ${key}`, [keyField.name]);
      continue;
    }
    const found = keyField === undefined ? [] : ctx.store.findBy(job.object, keyField.name, key);
    if (found.length > 1) {
      fail(
        'DUPLICATE_EXTERNAL_ID',
        `${keyField!.label}: more than one record found for external id field: [${found.map((f) => f.Id).join(', ')}]`,
        [keyField!.name],
      );
      continue;
    }
    const result = ctx.store.write(job.object, found[0], input, ctx.now());
    if (result.ok) job.successful.push([result.id, String(result.created), ...row]);
    else {
      job.failed += 1;
      // Bulk's row errors carry no duplicate ids (jetstream#482): the code, message and fields only.
      job.failedRows.push([
        '',
        result.errors.map((e) => `${e.statusCode}:${e.message}:${e.fields.join(',')} --`).join(''),
        ...row,
      ]);
    }
  }
  job.state = 'JobComplete';
}

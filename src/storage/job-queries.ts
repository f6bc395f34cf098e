/**
 * Reads used by the CLI and the admin API: stored jobs, and the purge of jti records
 * whose tokens have expired. Failures surface as StorageError.
 */
import type { Kysely, Selectable } from 'kysely';
import type { JobKind } from '../contract/enums.js';
import type { Database } from './database.js';
import { decodeEnvelope } from './envelope-codec.js';
import type { JobsTable } from './job-store/job-store-tables.js';
import { epochSeconds } from './job-store/jti-key.js';
import { assertLimit, guarded } from './query-guards.js';

/** A stored job as read back: its columns, with the envelope as the exact text that arrived. */
export type JobRow = Omit<Selectable<JobsTable>, 'envelope_z'> & { readonly envelope: string };

/** A jobs row with its envelope decoded. */
function decoded({ envelope_z, ...row }: Selectable<JobsTable>): JobRow {
  return { ...row, envelope: decodeEnvelope(envelope_z) };
}

/** Filters of {@link listJobs} and {@link countJobs}. */
export interface JobFilter {
  readonly kind?: JobKind;
  readonly status?: string;
}

/** Options of {@link listJobs}. */
export interface ListJobsOptions extends JobFilter {
  /** At most this many (default: every match). */
  readonly limit?: number;
}

/** The stored job `jobId`, or undefined. */
export async function getJob(db: Kysely<Database>, jobId: string): Promise<JobRow | undefined> {
  const row = await guarded(() =>
    db.selectFrom('jobs').selectAll().where('job_id', '=', jobId).executeTakeFirst(),
  );
  return row === undefined ? undefined : decoded(row);
}

/** Stored jobs matching the filter, newest first (by received_at, then job_id). */
export async function listJobs(db: Kysely<Database>, options: ListJobsOptions = {}): Promise<JobRow[]> {
  assertLimit(options.limit);
  const rows = await guarded(() => {
    let query = db.selectFrom('jobs').selectAll();
    if (options.kind !== undefined) query = query.where('kind', '=', options.kind);
    if (options.status !== undefined) query = query.where('status', '=', options.status);
    query = query.orderBy('received_at', 'desc').orderBy('job_id', 'desc');
    if (options.limit !== undefined) query = query.limit(options.limit);
    return query.execute();
  });
  return rows.map(decoded);
}

/** How many stored jobs match the filter. */
export async function countJobs(db: Kysely<Database>, filter: JobFilter = {}): Promise<number> {
  return guarded(async () => {
    let query = db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('count'));
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    const row = await query.executeTakeFirstOrThrow();
    // Postgres returns count(*) as a bigint string, SQLite as a number.
    return Number(row.count);
  });
}

/** Deletes jti records whose token expired before `now` (epoch ms or Date); returns how many. */
export async function purgeExpiredDeliveries(db: Kysely<Database>, now: number | Date): Promise<number> {
  const cutoff = new Date(now);
  if (!Number.isFinite(cutoff.getTime()))
    throw new TypeError('purgeExpiredDeliveries: now is not a valid time');
  return guarded(async () => {
    const result = await db
      .deleteFrom('deliveries')
      .where('expires_at_s', '<', epochSeconds(cutoff.getTime(), 'down'))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

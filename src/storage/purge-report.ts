/**
 * What a purge did (or, in a dry run, would do): rows per table, in one shape for both kinds of purge,
 * so that the CLI prints them alike and `--json` is stable.
 */

/** Tables a purge deletes from, in the order they are reported. */
export const PURGE_TABLES = [
  'jobs',
  'persons',
  'companies',
  'job_changes',
  'deliveries',
  'quarantine',
  'expected_jobs',
  'delivery_stats',
  'launch_rows',
  'watch_changes',
] as const;

/** A table a purge deletes from. */
export type PurgeTable = (typeof PURGE_TABLES)[number];

/** Rows per table. */
export type PurgeCounts = Record<PurgeTable, number>;

/** The report of `purgeOlderThan` or `purgePerson`. */
export interface PurgeReport {
  /** `older_than`: retention; `person`: an erasure request. */
  readonly mode: 'older_than' | 'person';
  /** True when nothing was deleted and `deleted` says what would have been. */
  readonly dry_run: boolean;
  /** Rows deleted (or that would be) per table. */
  readonly deleted: PurgeCounts;
  /** older_than: rows stored before this instant (ISO 8601 UTC) were purged. */
  readonly cutoff?: string;
  /** person: the LinkedIn URL as compared (normalized). */
  readonly person?: string;
  /** person: stored envelopes that mention the person, deleted only with `includeJobs`. */
  readonly jobs_mentioning?: readonly string[];
  /** person: whether those jobs were (or would be) deleted. */
  readonly include_jobs?: boolean;
}

/** Every table at 0. */
export function createEmptyPurgeCounts(): PurgeCounts {
  return Object.fromEntries(PURGE_TABLES.map((table) => [table, 0])) as PurgeCounts;
}

/** Rows over every table. */
export function totalPurged(counts: PurgeCounts): number {
  return PURGE_TABLES.reduce((sum, table) => sum + counts[table], 0);
}

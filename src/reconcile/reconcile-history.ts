/**
 * The reconcile_runs table: one row per run, written when it starts and when it ends, so that
 * `hooksync reconcile --history` shows what ran, when, and what it did.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import type { ReconcileReport, ReconcileStatus } from './reconcile-report.js';

/** Status of a run row. */
export type RunRowStatus = 'running' | 'completed' | 'failed' | 'aborted';

/** A past run as `--history` shows it. */
export interface ReconcileRunRecord {
  readonly id: string;
  readonly holder: string;
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly status: string;
  /** The run's report; undefined while it runs, or when the process died before finishing. */
  readonly report: ReconcileReport | undefined;
}

/** Rows `--history` shows by default. */
export const DEFAULT_HISTORY_LIMIT = 20;

/** The row status a report status is kept as. */
export function runRowStatusOf(status: ReconcileStatus): RunRowStatus {
  if (status === 'completed') return 'completed';
  if (status === 'aborted') return 'aborted';
  return 'failed';
}

/** Writes the row of a run that starts now. */
export async function startRunRecord(
  db: Kysely<Database>,
  run: { id: string; holder: string; startedAt: string },
): Promise<void> {
  await db
    .insertInto('reconcile_runs')
    .values({
      id: run.id,
      holder: run.holder,
      started_at: run.startedAt,
      finished_at: null,
      status: 'running',
      report: null,
    })
    .execute();
}

/** Writes how the run ended. */
export async function finishRunRecord(
  db: Kysely<Database>,
  id: string,
  report: ReconcileReport,
): Promise<void> {
  await db
    .updateTable('reconcile_runs')
    .set({
      status: runRowStatusOf(report.status),
      finished_at: report.finished_at,
      report: JSON.stringify(report),
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Marks aborted every row still `running` but `exceptId`: called under the lease, so no other run can
 * be alive; such rows belong to processes that died mid-run.
 */
export async function closeAbandonedRuns(
  db: Kysely<Database>,
  exceptId: string,
  nowIso: string,
): Promise<number> {
  const result = await db
    .updateTable('reconcile_runs')
    .set({ status: 'aborted', finished_at: nowIso })
    .where('status', '=', 'running')
    .where('id', '<>', exceptId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The latest runs, newest first. */
export async function listReconcileRuns(
  db: Kysely<Database>,
  limit: number = DEFAULT_HISTORY_LIMIT,
): Promise<ReconcileRunRecord[]> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new TypeError('limit must be a positive integer');
  const rows = await db
    .selectFrom('reconcile_runs')
    .selectAll()
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    holder: row.holder,
    started_at: row.started_at,
    finished_at: row.finished_at,
    status: row.status,
    report: parseReport(row.report),
  }));
}

function parseReport(text: string | null): ReconcileReport | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as ReconcileReport;
  } catch {
    return undefined;
  }
}

/** A place in the runs ordered by when they finished (then by id): where a reader of finished runs stands. */
export interface FinishedRunMark {
  readonly finishedAt: string;
  readonly id: string;
}

/** A run that has finished, with its report (undefined for a run closed as abandoned). */
export interface FinishedRun {
  readonly mark: FinishedRunMark;
  readonly status: string;
  readonly report: ReconcileReport | undefined;
}

/** The last run that has finished, whoever ran it (serve, cron, the CLI, another replica); undefined when none. */
export async function latestFinishedRunMark(db: Kysely<Database>): Promise<FinishedRunMark | undefined> {
  const row = await db
    .selectFrom('reconcile_runs')
    .select(['id', 'finished_at'])
    .where('finished_at', 'is not', null)
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.finished_at == null ? undefined : { finishedAt: row.finished_at, id: row.id };
}

/** Runs finished after `mark` (all when undefined), oldest first, at most `limit`. */
export async function listRunsFinishedAfter(
  db: Kysely<Database>,
  mark: FinishedRunMark | undefined,
  limit = 500,
): Promise<FinishedRun[]> {
  let query = db
    .selectFrom('reconcile_runs')
    .select(['id', 'finished_at', 'status', 'report'])
    .where('finished_at', 'is not', null);
  if (mark !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('finished_at', '>', mark.finishedAt),
        eb.and([eb('finished_at', '=', mark.finishedAt), eb('id', '>', mark.id)]),
      ]),
    );
  }
  const rows = await query.orderBy('finished_at').orderBy('id').limit(limit).execute();
  return rows.map((row) => ({
    mark: { finishedAt: row.finished_at ?? '', id: row.id },
    status: row.status,
    report: parseReport(row.report),
  }));
}

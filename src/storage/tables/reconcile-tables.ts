/** The table reconcile owns (reconcile/reconcile-history.ts); declared here, as storage may not import a feature. */
/** One reconcile run and its report. */
export interface ReconcileRunsTable {
  id: string;
  holder: string;
  started_at: string;
  finished_at: string | null;
  /** running | completed | failed | aborted */
  status: string;
  /** JSON report of the run, once finished. */
  report: string | null;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface ReconcileTables {
  reconcile_runs: ReconcileRunsTable;
}

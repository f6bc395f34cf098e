/** The table launch owns (launch/launch-records.ts); declared here, as storage may not import a feature. */
/** State of one row of a bulk launch (`hooksync launch`). */
export type LaunchRowState = 'sending' | 'launched' | 'failed' | 'uncertain';

/** One request of a bulk launch, recorded before it is sent and again once answered. */
export interface LaunchRowsTable {
  /** sha-256 of the operation and its request (without webhook_url): the row's identity across runs. */
  row_key: string;
  operation: string;
  /** The request sent, as JSON text. */
  request: string;
  state: LaunchRowState;
  /** The state before the current run claimed the row (null when new). */
  prior_state: string | null;
  run_id: string;
  attempts: number;
  /** The file and line the row came from (the latest run's). */
  source: string | null;
  line: number | null;
  job_id: string | null;
  /** The job's status in the launcher's answer. */
  status: string | null;
  /** usage.total_usd of the answer, as a decimal string. */
  usd: string | null;
  /** Persons on a Search Contact page (for --pages). */
  result_count: number | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface LaunchTables {
  launch_rows: LaunchRowsTable;
}

/** The ledger's table (storage/ledger/): the jobs hooksync expects. */
import type { JobKind } from '../../contract/enums.js';

/** State of a ledger entry. */
export type ExpectedJobState = 'pending' | 'received' | 'not_found' | 'failed';

/** Where a ledger entry came from. */
export type ExpectedJobOrigin = 'track' | 'admin' | 'launch' | 'hint';

/** The ledger of jobs we expect. */
export interface ExpectedJobsTable {
  job_id: string;
  kind: JobKind;
  state: ExpectedJobState;
  origin: ExpectedJobOrigin;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface LedgerTables {
  expected_jobs: ExpectedJobsTable;
}

/** The leases' table (storage/leases/). */
/** Named leases (one reconcile run at a time across processes and replicas). */
export interface LeasesTable {
  name: string;
  holder: string;
  acquired_at: string;
  expires_at: string;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface LeaseTables {
  leases: LeasesTable;
}

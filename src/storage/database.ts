/**
 * The database as Kysely sees it: every table, the same on SQLite and Postgres, grouped by the module that
 * owns it. A group lives beside its owner when the owner is in storage/ (the job store, the ledger, the
 * quarantine, the leases), and in storage/tables/ when a feature or the server owns it (storage may not
 * import them). Timestamps we set are ISO 8601 UTC strings (sortable as text on both dialects); dates the
 * service sent are kept as sent. JSON columns hold text.
 *
 * A new table: its interface in its owner's group file (a new file in storage/tables/ for a new owner,
 * exporting a `XTables` group), the group added to `Database` below, and a migration that creates it.
 */
import type { JobStoreTables } from './job-store/job-store-tables.js';
import type { LeaseTables } from './leases/lease-tables.js';
import type { LedgerTables } from './ledger/ledger-tables.js';
import type { QuarantineTables } from './quarantine/quarantine-tables.js';
import type { AlertTables } from './tables/alert-tables.js';
import type { DestinationTables } from './tables/destination-tables.js';
import type { ExportTables } from './tables/export-tables.js';
import type { LaunchTables } from './tables/launch-tables.js';
import type { ReceiverTables } from './tables/receiver-tables.js';
import type { ReconcileTables } from './tables/reconcile-tables.js';
import type { StatusPageTables } from './tables/status-page-tables.js';
import type { WatchTables } from './tables/watch-tables.js';

/** Every table, as Kysely sees the database: one group per owner. */
export interface Database
  extends JobStoreTables,
    LedgerTables,
    QuarantineTables,
    LeaseTables,
    ReconcileTables,
    LaunchTables,
    ExportTables,
    ReceiverTables,
    DestinationTables,
    StatusPageTables,
    WatchTables,
    AlertTables {}

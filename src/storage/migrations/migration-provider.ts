/**
 * The migrations, registered explicitly (imported modules in an object literal) so that they run from the
 * built package wherever it is installed; no directory scanning.
 */
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { type ColumnTypes, columnTypesFor, type StorageDialect } from '../column-types.js';
import * as m001 from './001-initial.js';
import * as m002 from './002-delivery-stats.js';
import * as m003 from './003-normalization-queue.js';
import * as m005 from './005-ui-sessions.js';
import * as m006 from './006-destinations.js';
import * as m007 from './007-launch-rows.js';
import * as m008 from './008-compressed-envelopes.js';
import * as m009 from './009-compressed-quarantine.js';
import * as m010 from './010-destination-counters.js';
import * as m011 from './011-compact-deliveries.js';
import * as m012 from './012-destination-pace.js';
import * as m014 from './014-watches.js';
import * as m016 from './016-crm-record-ids.js';
import * as m018 from './018-watch-pending-checks.js';
import * as m019 from './019-salesforce-bulk-jobs.js';
import * as m021 from './021-bounded-outside-text.js';
import * as m022 from './022-contract-views.js';
import * as m023 from './023-employment-view.js';
import * as m024 from './024-deliveries-view.js';
import * as m025 from './025-outbox-trace-parent.js';
import * as m026 from './026-alert-messages.js';
import * as m027 from './027-watch-plays.js';
import * as m029 from './029-destination-backfills.js';
import * as m030 from './030-persons-linkedin-url-partial.js';

/** What a migration module exports. */
export interface MigrationModule {
  up(db: Kysely<unknown>, types: ColumnTypes): Promise<void>;
  down?(db: Kysely<unknown>, types: ColumnTypes): Promise<void>;
}

/** Every migration, by name; names sort in the order they apply. */
export const MIGRATIONS: Readonly<Record<string, MigrationModule>> = Object.freeze({
  '001_initial': m001,
  '002_delivery_stats': m002,
  '003_normalization_queue': m003,
  '005_ui_sessions': m005,
  '006_destinations': m006,
  '007_launch_rows': m007,
  '008_compressed_envelopes': m008,
  '009_compressed_quarantine': m009,
  '010_destination_counters': m010,
  '011_compact_deliveries': m011,
  '012_destination_pace': m012,
  '014_watches': m014,
  '016_crm_record_ids': m016,
  '018_watch_pending_checks': m018,
  '019_salesforce_bulk_jobs': m019,
  '021_bounded_outside_text': m021,
  '022_contract_views': m022,
  '023_employment_view': m023,
  '024_deliveries_view': m024,
  '025_outbox_trace_parent': m025,
  '026_alert_messages': m026,
  '027_watch_plays': m027,
  '029_destination_backfills': m029,
  '030_persons_linkedin_url_partial': m030,
});

/** A Kysely MigrationProvider handing each migration the column types of `dialect`. */
export function createMigrationProvider(dialect: StorageDialect): MigrationProvider {
  const types = columnTypesFor(dialect);
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      const migrations: Record<string, Migration> = {};
      for (const [name, module] of Object.entries(MIGRATIONS)) {
        const { down } = module;
        migrations[name] = {
          up: (db) => module.up(db, types),
          ...(down ? { down: (db: Kysely<unknown>) => down(db, types) } : {}),
        };
      }
      return migrations;
    },
  };
}

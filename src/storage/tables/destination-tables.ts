/**
 * The tables destinations own (destinations/: outbox.ts, destination-admin.ts, destination-counters.ts,
 * shared-pace.ts); declared here, as storage may not import a feature. The outbox's events are written by
 * the job store in the storing transaction (job-store/record-outbox-events.ts).
 */
import type { Generated } from 'kysely';

/** A configured destination's state (src/destinations/): whether it is paused, and why. */
export interface DestinationsTable {
  name: string;
  /** webhook, file, or a type a later version adds. */
  type: string;
  /** 1 while in the configuration last synced, 0 once removed from it. */
  active: number;
  paused_at: string | null;
  pause_reason: string | null;
  /** The latest attempt that did not deliver (status and answer, never a secret). */
  last_error: string | null;
  last_error_at: string | null;
  updated_at: string;
  /** The end of a timed pause (a CRM's allocation or 429 window, migration 029); null when none was set. */
  deferred_until: string | null;
}

/** A destination's running totals by counter name (migration 010): added to, or set for a gauge. */
export interface DestinationCountersTable {
  destination: string;
  counter: string;
  value: number;
  updated_at: string;
}

/** A paced destination's next free call slot (migration 012), shared by every process working for it. */
export interface DestinationPaceTable {
  destination: string;
  /** ISO 8601 UTC with milliseconds: the earliest time the next call may go. */
  next_at: string;
}

/** Which job kinds an event-driven destination takes ('*' for every kind): the outbox's routing. */
export interface DestinationKindsTable {
  destination: string;
  kind: string;
}

/** A job or watch change `destinations backfill` queued for a destination (migration 029): never twice. */
export interface DestinationBackfillsTable {
  destination: string;
  /** The job_id for a job's event; `change:<watch_changes.id>` for a watch change's. */
  item: string;
  job_id: string;
  queued_at: string;
}

/** What became of an outbox event. */
export type OutboxStatus = 'pending' | 'delivered' | 'failed' | 'superseded';

/** One stored job revision to hand on to one destination, written in the transaction that stored it. */
export interface OutboxEventsTable {
  /** Order of writing (a string of digits on Postgres, where it is a bigserial). */
  id: Generated<number | string>;
  destination: string;
  job_id: string;
  revision: number;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  claimed_by: string | null;
  claimed_until: string | null;
  /** The HTTP status of the last attempt, if it got one. */
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  /** A watch's change (watch_changes.id) when the event carries one; null for a job revision. */
  change_id: number | string | null;
  /** The W3C traceparent of the delivery that stored the job (tracing on; migration 025), else null. */
  trace_parent: string | null;
}

/** A record id a CRM destination's CRM holds for a key (migration 016): found or written once, never searched again. */
export interface CrmRecordIdsTable {
  destination: string;
  /** `companies` or `contacts`. */
  object: string;
  /** The normalized key: a domain, an e-mail, a LinkedIn URL. */
  key: string;
  record_id: string;
  recorded_at: string;
}

/** A Bulk API 2.0 job a salesforce destination closed and has not read the results of (migration 019). */
export interface SalesforceBulkJobsTable {
  destination: string;
  /** sha256 of the object, the key field and the CSV uploaded. */
  fingerprint: string;
  object: string;
  job_id: string;
  records: number;
  created_at: string;
}

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface DestinationTables {
  destinations: DestinationsTable;
  destination_kinds: DestinationKindsTable;
  destination_counters: DestinationCountersTable;
  destination_pace: DestinationPaceTable;
  crm_record_ids: CrmRecordIdsTable;
  salesforce_bulk_jobs: SalesforceBulkJobsTable;
  destination_backfills: DestinationBackfillsTable;
  outbox_events: OutboxEventsTable;
}

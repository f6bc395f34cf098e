/**
 * The database as Kysely sees it: one interface per table, the same on SQLite and Postgres.
 * Timestamps we set are ISO 8601 UTC strings (sortable as text on both dialects); dates the service
 * sent are kept as sent. JSON columns hold text.
 */
import type { Generated } from 'kysely';
import type { JobKind } from '../contract/enums.js';

/** How a job reached us. */
export type JobSource = 'webhook' | 'finder' | 'launch';
/** State of a ledger entry. */
export type ExpectedJobState = 'pending' | 'received' | 'not_found' | 'failed';
/** Where a ledger entry came from. */
export type ExpectedJobOrigin = 'track' | 'admin' | 'launch' | 'hint';

/** One stored job: the envelope exactly as received, with what was read from it. */
export interface JobsTable {
  job_id: string;
  kind: JobKind;
  /** As sent: RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED, or another value a later version adds. */
  status: string;
  context_id: string | null;
  start_date: string | null;
  stop_date: string | null;
  /**
   * The envelope exactly as it arrived, compressed (envelope-codec.ts): read it only through
   * decodeEnvelope, which gives back the original text.
   */
  envelope_z: Buffer;
  /** Unpadded base64url SHA-256 of the original envelope bytes. */
  payload_hash: string;
  source: JobSource;
  /**
   * 1 when the envelope fits the schema of its kind; 0 when stored anyway and flagged. Final once the job
   * has left the normalization queue (until then 1, not yet checked).
   */
  schema_valid: number;
  /** Why it did not fit (JSON array of strings), when schema_valid is 0. */
  schema_issues: string | null;
  received_at: string;
  updated_at: string;
  /** 1 when first stored, +1 each time a RUNNING (or status-less) copy is replaced by a finished one. */
  revision: Generated<number>;
}

/** One accepted callback token, kept until it expires so that a replay of it is recognised. */
export interface DeliveriesTable {
  /** The JWT's jti as job-store/jti-key.ts keys it (16 bytes of its SHA-256): a replay hits this key. */
  jti_key: Buffer;
  /** The token's exp, epoch seconds (rounded up); rows past it are purged (the token can no longer verify). */
  expires_at_s: number;
  /** When the token was received, epoch seconds (rounded down). */
  received_at_s: number;
}

/** A refused callback body, kept with the reason it was refused. */
export interface QuarantineTable {
  id: string;
  /** A SignatureReason or another refusal code. */
  reason: string;
  detail: string | null;
  claimed_job_id: string | null;
  kind: JobKind | null;
  content_type: string | null;
  /**
   * The raw body as received (may not be valid UTF-8), compressed by envelope-codec.ts's encodeBytes
   * (migration 009); read it through decodeQuarantineBody. Empty once the byte budget dropped it.
   */
  body_z: Buffer;
  /** The body's size as received, in bytes (0 once dropped). */
  body_bytes: number;
  received_at: string;
}

/** One person out of a Search Contact page or a Job Change result. */
export interface PersonsTable {
  job_id: string;
  /** Index in output.persons (0 for a Job Change person). */
  position: number;
  source_kind: 'search_contact' | 'job_change';
  person_id: string | null;
  first_name: string | null;
  last_name: string | null;
  linkedin_id: string | null;
  linkedin_url: string | null;
  location: string | null;
  country: string | null;
  company_id: string | null;
  company_linkedin_id: string | null;
  company_name: string | null;
  company_domain: string | null;
  title: string | null;
  seniority: string | null;
  department: string | null;
  /** JSON object, as sent in input.task.custom_fields (null only on rows older than migration 007 left unmatched). */
  custom_fields: string | null;
  received_at: string;
}

/**
 * One Company Reveal result: what exports filter, order and deduplicate by. Every other field of the
 * result is read from the stored envelope when an export asks for it (export/companies-source.ts).
 */
export interface CompaniesTable {
  job_id: string;
  /** output.company.id */
  company_id: string | null;
  /** output.company.domain */
  domain: string | null;
  /** output.company.name */
  name: string | null;
  /** JSON object, as sent in input.task.custom_fields: small, and what `--carry` puts a record id in. */
  custom_fields: string | null;
  received_at: string;
}

/** One Job Change result: the input contact beside what the service found. */
export interface JobChangesTable {
  job_id: string;
  job_change_status: string | null;
  contact_linkedin: string | null;
  contact_full_name: string | null;
  company_domain: string | null;
  company_linkedin: string | null;
  professional_email: string | null;
  personal_email: string | null;
  person_id: string | null;
  first_name: string | null;
  last_name: string | null;
  linkedin_url: string | null;
  new_title: string | null;
  new_company_name: string | null;
  new_company_domain: string | null;
  new_company_linkedin_id: string | null;
  previous_title: string | null;
  previous_company_name: string | null;
  previous_company_domain: string | null;
  /** JSON object, as sent in input.task.custom_fields. */
  custom_fields: string;
  received_at: string;
}

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

/** Named leases (one reconcile run at a time across processes and replicas). */
export interface LeasesTable {
  name: string;
  holder: string;
  acquired_at: string;
  expires_at: string;
}

/** Signed-in status page sessions; signing out deletes the row (migration 005). */
export interface UiSessionsTable {
  /** Random id, named by the session cookie. */
  id: string;
  created_at: string;
  /** ISO instant after which the session no longer counts. */
  expires_at: string;
}

/** Where `export --since-last` resumes, per template. */
export interface ExportCursorsTable {
  template: string;
  cursor: string;
  rows: number;
  updated_at: string;
}

/** Deliveries per hour and outcome (the status page's chart). */
export interface DeliveryStatsTable {
  /** Start of the hour, ISO 8601 UTC (e.g. 2026-11-22T21:00:00.000Z). */
  hour: string;
  /** A DeliveryOutcome: stored, updated, duplicate, replay, fetched, refused, retry_later, overloaded. */
  outcome: string;
  count: number;
}

/**
 * Jobs stored without their normalized rows yet (`hooksync serve` derives those of large envelopes just
 * after acknowledging): removed in the transaction that writes the rows.
 */
export interface NormalizationQueueTable {
  /** Order of queueing (a string of digits on Postgres, where it is a bigserial). */
  id: Generated<number | string>;
  job_id: string;
  /** The jobs.revision to normalize. */
  revision: number;
  /** jobs.updated_at of that revision, which the derived rows take as their received_at. */
  stored_at: string;
}

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
}

/**
 * Envelopes `purge --person` kept (without --include-jobs) that mention the purged person: the rows it
 * found them through are gone, and compressed envelopes cannot be searched in SQL, so a later purge of the
 * same person (with --include-jobs) finds them here. Removed with their jobs.
 */
export interface KeptMentionsTable {
  /** The person's LinkedIn URL, normalized (purge-linkedin-url.ts). */
  linkedin_url: string;
  job_id: string;
}

/**
 * The free-text `about` of a job's persons, kept once per job and compressed (persons-texts.ts) rather
 * than in every persons row: a JSON array by position (null where a person has none), encoded like an
 * envelope. Exports read it once per job.
 */
export interface PersonTextsTable {
  job_id: string;
  abouts_z: Buffer;
}

// Watches (src/watches/, migration 014).

/** One cycle of a watch (src/watches/watch-store.ts). */
export interface WatchCyclesTable {
  watch: string;
  cycle: number;
  started_at: string;
  /** When the next cycle may begin: started_at plus the watch's period. */
  ends_at: string;
  finished_at: string | null;
  /** Valid rows of the source at its latest reading. */
  rows: number;
  checked: number;
  baseline: number;
  changes: number;
  /** Spent this cycle, in millionths of a dollar (a string of digits on Postgres, where it is a bigint). */
  usd_micros: number | string;
  /** Why the cycle stopped before its rows were all checked: quota, max_usd, auth, source. */
  stopped: string | null;
  /** 1 once the cycle said it cannot finish in its period. */
  overrun_noted: number;
  updated_at: string;
}

/** The memory of one watched row (src/watches/watch-store.ts). */
export interface WatchRowsTable {
  watch: string;
  /** launch/row-key.ts over the row's request, relative dates as written. */
  row_key: string;
  /** The carried custom_fields, JSON. */
  custom_fields: string;
  /** The last state observed (JSON), null until an answer said something known. */
  state: string | null;
  checked_cycle: number;
  checked_at: string;
  job_id: string | null;
  first_seen_at: string;
}

/** A change a watch found (src/watches/watch-store.ts). */
export interface WatchChangesTable {
  id: Generated<number | string>;
  watch: string;
  row_key: string;
  cycle: number;
  /** baseline, moved, left, returned, title, new_person. */
  change: string;
  /** A search's person id; '' for a job change. */
  change_key: string;
  custom_fields: string;
  /** JSON; null for a baseline or a new person. */
  before: string | null;
  after: string;
  detected_at: string;
  job_id: string;
}

/** Every table, as Kysely sees the database. */
export interface Database {
  jobs: JobsTable;
  deliveries: DeliveriesTable;
  quarantine: QuarantineTable;
  persons: PersonsTable;
  companies: CompaniesTable;
  job_changes: JobChangesTable;
  expected_jobs: ExpectedJobsTable;
  reconcile_runs: ReconcileRunsTable;
  leases: LeasesTable;
  export_cursors: ExportCursorsTable;
  delivery_stats: DeliveryStatsTable;
  normalization_queue: NormalizationQueueTable;
  ui_sessions: UiSessionsTable;
  launch_rows: LaunchRowsTable;
  destinations: DestinationsTable;
  destination_kinds: DestinationKindsTable;
  destination_counters: DestinationCountersTable;
  destination_pace: DestinationPaceTable;
  outbox_events: OutboxEventsTable;
  kept_mentions: KeptMentionsTable;
  person_texts: PersonTextsTable;
  watch_cycles: WatchCyclesTable;
  watch_rows: WatchRowsTable;
  watch_changes: WatchChangesTable;
}

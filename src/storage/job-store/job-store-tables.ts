/**
 * The job store's tables (storage/job-store/, its batch writer and normalizer): jobs and their replay
 * guard, the rows derived from their envelopes, the queue of those still to derive, and what purges keep.
 */
import type { Generated } from 'kysely';
import type { JobKind } from '../../contract/enums.js';

/** How a job reached us. */
export type JobSource = 'webhook' | 'finder' | 'launch';

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

/** These tables as Kysely sees them (a group of storage/database.ts's Database). */
export interface JobStoreTables {
  jobs: JobsTable;
  deliveries: DeliveriesTable;
  persons: PersonsTable;
  companies: CompaniesTable;
  job_changes: JobChangesTable;
  normalization_queue: NormalizationQueueTable;
  kept_mentions: KeptMentionsTable;
  person_texts: PersonTextsTable;
}

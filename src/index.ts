/**
 * hooksync's public library surface, the only barrel: the entry points a user's own code needs, each with
 * its option and result types. Sections: verifying callbacks; receiving them in your own express app;
 * storage (open, migrate, store, read); retention; the service's client; the ledger and reconcile; export;
 * configuration; the interface's envelopes and lossless JSON; errors and their codes. Everything else is
 * internal. The simulator and test helpers are the separate entry `hooksync/simulator` (src/simulator.ts).
 * test/unit/index-surface.test.ts keeps the count of values at most 40, each listed in README.md.
 */

/** The service's client: typed, paced, retrying. */
export {
  type Client,
  type ClientOptions,
  createClient,
} from './client/create-client.js';
/** A job as the client returns it, raw text kept. */
export type { JobResponse } from './client/job-response.js';
/** Configuration from the environment, as `hooksync serve` reads it. */
export {
  type ConfigOverrides,
  type HooksyncConfig,
  loadConfig,
} from './config/load-config.js';
/** The interface's job statuses and kinds. */
export type { JobKind, JobStatus } from './contract/enums.js';
/** The job envelope, checked loosely: later fields survive. */
export { type JobEnvelope, parseJobEnvelope } from './contract/envelope.js';
/** Which operation an envelope came from, by its shape. */
export { detectJobKind } from './contract/job-kind.js';
/** Lossless JSON: int64 values parse to bigint and print back to their digits. */
export { parseJsonText, stringifyJson } from './contract/json.js';
/** A rate limit, as the client's pacing takes it. */
export type { RateLimit } from './contract/rate-limit.js';
/** The header that carries a callback's signed token. */
export { WEBHOOK_SIGNATURE_HEADER, type WebhookClaims } from './contract/webhook-signature.js';
/** Errors: one base class with a code from closed unions, a subclass per family. */
export {
  type AnyErrorCode,
  ConfigError,
  type ErrorCategory,
  type ErrorCode,
  type HooksyncCode,
  HooksyncError,
  isErrorCode,
  type RefusalCode,
  ServiceError,
  SignatureError,
  type SignatureReason,
  StorageError,
  TemplateError,
  type TransientCode,
  ValidationError,
} from './errors.js';
/** Export rows of a template one by one, for your own sink. */
export {
  type ExportRowsOptions,
  exportRows,
  templateHeader,
} from './export/export-rows.js';
/** Undoing the formula guard: a cell read back from an export to the stored value. */
export { unguardFormula } from './export/formula-guard.js';
/** Built-in and your own export templates. */
export {
  listTemplates,
  loadTemplate,
  type TemplateLocation,
  type TemplateSummary,
} from './export/load-template.js';
/** An export template, checked. */
export type { ExportTemplate } from './export/parse-template.js';
/** One export to a file, atomic, with the `--since-last` cursor. */
export {
  type ExportReport,
  type RunExportOptions,
  runExport,
} from './export/run-export.js';
/** CSV out, every cell guarded against formulas. */
export {
  type WriteCsvOptions,
  type WriteCsvResult,
  writeCsv,
} from './export/write-csv.js';
/** Launches that record themselves in the ledger first, then store a finished answer. */
export {
  createLauncher,
  type Launcher,
  type LauncherClient,
  type LauncherDeps,
  type LaunchResult,
} from './launch/create-launcher.js';
/** The webhook route inside your own express app. */
export {
  createWebhookMiddleware,
  type WebhookMiddlewareOptions,
} from './receiver/create-webhook-middleware.js';
/** The answer to one delivery: the status the sender sees. */
export type { DeliveryAnswer } from './receiver/delivery-answer.js';
/** One delivery: verify, store or quarantine, answer; never throws. */
export {
  createDeliveryHandler,
  type DeliveryHandler,
  type DeliveryHandlerDeps,
  type DeliveryRequest,
} from './receiver/handle-delivery.js';
/** What a reconcile run did. */
export type { ReconcileReport } from './reconcile/reconcile-report.js';
/** One reconcile run: lease, due entries, finder fetches, report. */
export {
  type ReconcileDeps,
  type ReconcileOptions,
  runReconcile,
} from './reconcile/run-reconcile.js';
/** Runs on a cron schedule that never overlap. */
export {
  type ReconcileSchedule,
  type ScheduleReconcileOptions,
  scheduleReconcile,
} from './reconcile/schedule-reconcile.js';
/** Every table as Kysely sees it. */
export type { Database } from './storage/database.js';
/** Reads of stored jobs, the envelope decoded to its text. */
export {
  getJob,
  type JobRow,
  type ListJobsOptions,
  listJobs,
} from './storage/job-queries.js';
/** The job store: a 2xx only after the commit. */
export {
  type CommitLoopStore,
  createJobStore,
  type JobStore,
  type JobStoreDeps,
  type StoreInput,
  type StoreResult,
} from './storage/job-store/job-store.js';
export type { ExpectedJobOrigin } from './storage/ledger/ledger-tables.js';
/** Adding expected jobs to the ledger. */
export { type ExpectedJob, recordExpectedJobs } from './storage/ledger/record-expected-jobs.js';
/** The schema's migrations, run to the latest. */
export { type MigrationReport, migrateToLatest } from './storage/migrate-to-latest.js';
/** A database by URL: a SQLite file or Postgres. */
export {
  type HooksyncDatabase,
  type OpenDatabaseOptions,
  openDatabase,
} from './storage/open-database.js';
/** A database by URL, migrated on open. */
export { openMigratedDatabase } from './storage/open-migrated-database.js';
/** Retention: jobs older than a date. */
export { type PurgeOlderThanOptions, purgeOlderThan } from './storage/purge-older-than.js';
/** Erasure: one person's data. */
export { type PurgePersonOptions, purgePerson } from './storage/purge-person.js';
/** What a purge removed. */
export type { PurgeReport } from './storage/purge-report.js';
/** A body the receiver refused, as the quarantine keeps it. */
export type { QuarantineInput } from './storage/quarantine/write-quarantine.js';
/** The key-set cache: refresh, stale-if-error, unknown-kid refetch with cooldown. */
export {
  createKeySetCache,
  type KeySetCache,
  type KeySetCacheOptions,
  type KeySetCacheStats,
} from './webhooks/key-set-cache.js';
/** A whole callback verified over its raw bytes: token, times, body hash, job_id. */
export {
  type VerifiedCallback,
  type VerifyCallbackDeps,
  type VerifyCallbackInput,
  verifyCallback,
} from './webhooks/verify-callback.js';

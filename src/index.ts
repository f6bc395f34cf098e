/**
 * hooksync's public library surface: the only barrel. Everything a user's own code needs to verify and
 * store callbacks, talk to the service, reconcile and export; internals stay unexported. The simulator is
 * the separate entry `hooksync/simulator` (src/simulator.ts).
 */

// The client
export { type Client, type ClientOptions, createClient } from './client/create-client.js';
export type { JobResponse } from './client/job-response.js';
export type { RateLimit } from './client/pacer.js';
// Configuration
export { type HooksyncConfig, loadConfig } from './config/load-config.js';
export { isTerminalStatus, JOB_STATUSES, type JobKind, type JobStatus } from './contract/enums.js';
export { checkEnvelopeForKind, type JobEnvelope, parseJobEnvelope } from './contract/envelope.js';
// The service interface
export {
  categoryOf,
  ERROR_CODES,
  type ErrorCategory,
  type ErrorCode,
  httpStatusOf,
  isErrorCode,
} from './contract/error-codes.js';
export { isJobId } from './contract/job-id.js';
export { claimedJobId, detectJobKind } from './contract/job-kind.js';
export { parseJsonText, stringifyJson } from './contract/json.js';
export {
  parseCompanyRevealRequest,
  parseJobChangeRequest,
  parseSearchContactRequest,
} from './contract/requests.js';
export {
  compileTitleFilter,
  matchesTitleFilter,
  parseTitleFilter,
  printTitleFilter,
  type TitleFilterNode,
} from './contract/title-filter.js';
export {
  computeBodyHash,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookClaims,
} from './contract/webhook-signature.js';
// Errors
export {
  ConfigError,
  HooksyncError,
  ServiceError,
  SignatureError,
  type SignatureReason,
  StorageError,
  TemplateError,
  ValidationError,
} from './errors.js';
export { exportRows, templateHeader } from './export/export-rows.js';
export { guardFormula, unguardFormula } from './export/formula-guard.js';
// Export
export { listTemplates, loadTemplate } from './export/load-template.js';
export { parseTemplate } from './export/parse-template.js';
export { type ExportReport, runExport } from './export/run-export.js';
export { writeCsv } from './export/write-csv.js';
export { createWebhookMiddleware } from './receiver/create-webhook-middleware.js';
// The receiver
export {
  createDeliveryHandler,
  type DeliveryHandler,
  type DeliveryHandlerDeps,
} from './receiver/handle-delivery.js';
export { type RunningReceiver, startReceiver } from './receiver/start-receiver.js';
export { createAdminRouter } from './reconcile/create-admin-router.js';
export { createLauncher } from './reconcile/create-launcher.js';
export { listReconcileRuns } from './reconcile/reconcile-history.js';
export type { ReconcileReport } from './reconcile/reconcile-report.js';
// The ledger and reconcile
export { recordExpectedJobs } from './reconcile/record-expected-jobs.js';
export { type ReconcileDeps, type ReconcileOptions, runReconcile } from './reconcile/run-reconcile.js';
export { scheduleReconcile } from './reconcile/schedule-reconcile.js';
export type { Database } from './storage/database.js';
export { decodeEnvelope, loadEnvelopeText } from './storage/envelope-codec.js';
export { getJob, listJobs, listQuarantine } from './storage/job-queries.js';
export { createJobStore, type JobStore, type StoreResult } from './storage/job-store/job-store.js';
export { type MigrationReport, migrateToLatest } from './storage/migrate-to-latest.js';
// Storage
export { type HooksyncDatabase, openDatabase } from './storage/open-database.js';
export { openMigratedDatabase } from './storage/open-migrated-database.js';
// Retention
export { purgeOlderThan } from './storage/purge-older-than.js';
export { purgePerson } from './storage/purge-person.js';
export type { PurgeReport } from './storage/purge-report.js';
export { decodeClaimsUnverified } from './webhooks/decode-claims-unverified.js';
// Verifying callbacks
export {
  createKeySetCache,
  KeySetCache,
  type KeySetCacheOptions,
  type KeySetCacheStats,
} from './webhooks/key-set-cache.js';
export { type VerifiedCallback, verifyCallback } from './webhooks/verify-callback.js';

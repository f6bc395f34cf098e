/**
 * Launching jobs through hooksync so that none can go missing: each launch is recorded in the ledger
 * (origin 'launch') before anything else, then a finished answer is stored at once (source 'launch',
 * which closes the entry), while a RUNNING one stays expected until its callback or reconcile brings it.
 */
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import type { CallOptions } from '../client/call-options.js';
import type { Client } from '../client/create-client.js';
import type { JobResponse } from '../client/job-response.js';
import { isTerminalStatus } from '../contract/enums.js';
import { claimedJobId } from '../contract/job-kind.js';
import { ServiceError } from '../errors.js';
import type { Database } from '../storage/database.js';
import type { StoreInput, StoreResult } from '../storage/job-store/job-store.js';
import { recordExpectedJobs } from '../storage/ledger/record-expected-jobs.js';

/** The requests, as the client's launchers take them. */
export type CompanyRevealRequest = Parameters<Client['companyReveal']>[0];
export type SearchContactRequest = Parameters<Client['searchContact']['launch']>[0];
export type JobChangeRequest = Parameters<Client['jobChange']['launch']>[0];

/** The launchers used: a narrow view of the client. */
export interface LauncherClient {
  companyReveal(request: CompanyRevealRequest, options?: CallOptions): Promise<JobResponse>;
  readonly searchContact: {
    launch(request: SearchContactRequest, options?: CallOptions): Promise<JobResponse>;
  };
  readonly jobChange: { launch(request: JobChangeRequest, options?: CallOptions): Promise<JobResponse> };
}

/** Collaborators of {@link createLauncher}. */
export interface LauncherDeps {
  client: LauncherClient;
  store: { store(input: StoreInput): Promise<StoreResult> };
  db: Kysely<Database>;
  /** Clock in epoch ms (default Date.now). */
  now?: () => number;
  /** Default silent. */
  logger?: Logger;
}

/** What one launch did. */
export interface LaunchResult {
  readonly job_id: string;
  readonly kind: 'company_reveal' | 'search_contact' | 'job_change';
  /** The job's status in the launcher's answer. */
  readonly status: string;
  /** The answer: parsed job, exact text and bytes. */
  readonly response: JobResponse;
  /** The store's answer when the job was finished and stored; undefined while RUNNING. */
  readonly stored: StoreResult | undefined;
  /** True when the ledger still expects the job (it was RUNNING). */
  readonly expected: boolean;
}

/** Launch methods that record what they launch. */
export interface Launcher {
  companyReveal(request: CompanyRevealRequest, options?: CallOptions): Promise<LaunchResult>;
  searchContact(request: SearchContactRequest, options?: CallOptions): Promise<LaunchResult>;
  jobChange(request: JobChangeRequest, options?: CallOptions): Promise<LaunchResult>;
}

/** Builds the launcher. The client's errors (ServiceError, ValidationError) pass through unchanged. */
export function createLauncher(deps: LauncherDeps): Launcher {
  const { client, store, db } = deps;
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? pino({ level: 'silent' });

  async function record(kind: LaunchResult['kind'], response: JobResponse): Promise<LaunchResult> {
    const jobId = claimedJobId(response.job);
    if (jobId === undefined) {
      throw new ServiceError({
        status: response.status,
        code: 'RESPONSE_MALFORMED',
        message: `the ${kind} launcher answered without input.task.job_id; the job cannot be tracked`,
      });
    }
    // Ledger first: if storing fails below, the entry is still there for reconcile (or the callback).
    await recordExpectedJobs(db, [{ job_id: jobId, kind }], 'launch', new Date(now()));
    const status = response.job.status;
    if (!isTerminalStatus(status)) {
      logger.info({ job_id: jobId, kind, status }, 'launched; expecting the job');
      return { job_id: jobId, kind, status, response, stored: undefined, expected: true };
    }
    // A finished answer is the job itself (Company Reveal: "no polling is needed"); storing a finished
    // job closes its ledger entry in the same transaction.
    const stored = await store.store({
      envelopeText: response.raw,
      envelope: response.job,
      source: 'launch',
    });
    logger.info({ job_id: jobId, kind, status, outcome: stored.outcome }, 'launched and stored');
    return { job_id: jobId, kind, status, response, stored, expected: false };
  }

  return {
    companyReveal: async (request, options) =>
      record('company_reveal', await client.companyReveal(request, options)),
    searchContact: async (request, options) =>
      record('search_contact', await client.searchContact.launch(request, options)),
    jobChange: async (request, options) =>
      record('job_change', await client.jobChange.launch(request, options)),
  };
}

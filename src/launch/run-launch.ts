/**
 * `hooksync launch`, the run: check every row first (nothing is sent while any is invalid, unless asked to
 * skip them), then launch with a few workers: each request claimed in the database before it is sent and
 * recorded after, paced by the client (Search, Job Change) or at the service's pace (Company Reveal), and
 * the whole run stopped at once on a 402, an auth failure, the budget or an interrupt.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import { ServiceError, StorageError } from '../errors.js';
import type { Database } from '../storage/database.js';
import { buildRequest, type RequestPlan } from './build-request.js';
import type { Launcher, LaunchResult } from './create-launcher.js';
import type { DispatchScope, DispatchTracker } from './dispatch-tracker.js';
import { launchRequest, personsOf, stoppingReasonOf, usdOf } from './launch-call.js';
import { claimLaunchRow, type LaunchOutcome, recordLaunchOutcome } from './launch-records.js';
import {
  addProblem,
  createLaunchReport,
  type LaunchReport,
  type LaunchStop,
  roundUsd,
} from './launch-report.js';
import { LaunchRowWriter } from './launch-row-writer.js';
import { type InputFormat, readRows } from './read-rows.js';
import { rowKey } from './row-key.js';
import { type ValidatedFile, validateRows } from './validate-rows.js';

/** Workers for the paced operations: enough to keep the pacer's queue full, few enough to stop fast. */
export const DEFAULT_PACED_CONCURRENCY = 4;
/** Workers for Company Reveal, which the service does not rate-limit. */
export const DEFAULT_REVEAL_CONCURRENCY = 8;
/** Requests shown by a dry run. */
export const DRY_RUN_SAMPLE = 3;

/** What a run needs. */
export interface LaunchDeps {
  readonly db: Kysely<Database>;
  /** Records each launch in the ledger and stores a finished answer (reconcile/create-launcher.ts). */
  readonly launcher: Launcher;
  /** The dispatch tracker whose fetch the launcher's client uses. */
  readonly tracker: DispatchTracker;
  /** Learns the key's own rate before paced launches (client.learnRateLimit). */
  readonly learnRateLimit?: (() => Promise<unknown>) | undefined;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly logger?: Logger;
  /** Aborts the run between rows (Ctrl-C): what is in flight finishes, nothing new starts. */
  readonly signal?: AbortSignal | undefined;
}

/** Knobs of one run. */
export interface LaunchOptions {
  readonly plan: RequestPlan;
  readonly path: string;
  readonly format: InputFormat;
  /** The file's name as recorded with each row. */
  readonly sourceName: string;
  readonly again?: boolean;
  readonly dryRun?: boolean;
  readonly skipInvalid?: boolean;
  /** Stop launching once the answers' usage.total_usd add up to this. */
  readonly maxUsd?: number | undefined;
  /** Default 4 for Search and Job Change, 8 for Company Reveal. */
  readonly concurrency?: number | undefined;
  /** Each problem as found. */
  readonly onProblem?: ((line: number, message: string) => void) | undefined;
  /** After the first pass: the file's counts and columns. */
  readonly onValidated?: ((file: ValidatedFile, report: LaunchReport) => void) | undefined;
  /** After each row. */
  readonly onProgress?: ((report: LaunchReport, done: number, total: number) => void) | undefined;
}

function describe(error: unknown): string {
  if (error instanceof ServiceError || error instanceof StorageError)
    return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/** Runs a bulk launch and returns its report; throws only for a file that cannot be read or a broken database. */
export async function runLaunch(deps: LaunchDeps, options: LaunchOptions): Promise<LaunchReport> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const logger = deps.logger ?? pino({ level: 'silent' });
  const { plan } = options;
  const operation = plan.operation;
  const startedMs = now();
  const report = createLaunchReport(operation.name, options.dryRun ?? false);
  const finish = (): LaunchReport => {
    report.usd = roundUsd(report.usd);
    report.rate_limited = deps.tracker.rateLimited;
    report.elapsed_ms = now() - startedMs;
    return report;
  };

  const file = await validateRows(report, {
    plan,
    path: options.path,
    format: options.format,
    onProblem: options.onProblem,
    dryRun: options.dryRun ? { db: deps.db, sample: DRY_RUN_SAMPLE } : undefined,
  });
  options.onValidated?.(file, report);
  if (report.invalid > 0 && !options.skipInvalid) {
    report.stopped = 'invalid_rows';
    report.stopped_reason = `${report.invalid} of ${report.rows} rows are invalid: nothing was launched (fix them, or pass --skip-invalid)`;
    return finish();
  }
  if (options.dryRun) return finish();

  const runId = randomUUID();
  const writer = new LaunchRowWriter(deps.db);
  const active = new Set<{ scope: DispatchScope; controller: AbortController }>();
  const stop = (reason: LaunchStop, message: string): void => {
    if (report.stopped !== null) return;
    report.stopped = reason;
    report.stopped_reason = message;
    logger.warn({ reason }, message);
    // Only calls whose request never left are abandoned; one the service may have taken is seen through.
    for (const call of active) if (!call.scope.dispatched) call.controller.abort(new Error(message));
  };
  const onInterrupt = (): void => stop('interrupted', 'interrupted: no new rows are launched');
  deps.signal?.addEventListener('abort', onInterrupt, { once: true });
  if (deps.signal?.aborted) onInterrupt();

  const call = (request: Record<string, unknown>, scope: DispatchScope, signal: AbortSignal) =>
    deps.tracker.run(scope, () => launchRequest(deps.launcher, operation, request, { signal }));
  /** Sends one request (one page); resolves the persons on the page when it was launched. */
  const send = async (
    request: Record<string, unknown>,
    line: number,
  ): Promise<{ go: boolean; count?: number }> => {
    const key = rowKey(operation.name, request);
    const claim = await writer.submit((trx) =>
      claimLaunchRow(trx, {
        rowKey: key,
        operation: operation.name,
        requestText: JSON.stringify(request),
        runId,
        source: options.sourceName,
        line,
        again: options.again ?? false,
        now: new Date(now()),
      }),
    );
    if (!claim.claimed) {
      report.skipped += 1;
      const launched = claim.existing.state === 'launched';
      return {
        go: launched,
        ...(claim.existing.result_count === null ? {} : { count: claim.existing.result_count }),
      };
    }
    if (claim.priorState === 'sending' || claim.priorState === 'uncertain') report.relaunched += 1;
    while (report.stopped === null && deps.tracker.pausedUntilMs > now()) {
      await sleep(Math.min(1000, deps.tracker.pausedUntilMs - now()));
    }
    const scope: DispatchScope = { dispatched: false, lastStatus: undefined };
    const controller = new AbortController();
    const entry = { scope, controller };
    if (report.stopped !== null) controller.abort(new Error(report.stopped_reason ?? 'stopped'));
    active.add(entry);
    let outcome: LaunchOutcome;
    let result: LaunchResult | undefined;
    try {
      result = await call(request, scope, controller.signal);
      outcome = {
        state: 'launched',
        jobId: result.job_id,
        status: result.status,
        usd: usdOf(result),
        resultCount: personsOf(result),
      };
    } catch (error) {
      outcome = failure(error, scope, line);
    } finally {
      active.delete(entry);
    }
    await writer.submit((trx) => recordLaunchOutcome(trx, key, outcome, new Date(now())));
    if (result === undefined) return { go: false };
    report.launched += 1;
    if (result.stored !== undefined) report.stored += 1;
    report.usd += outcome.usd ?? 0;
    if (options.maxUsd !== undefined && report.usd >= options.maxUsd) {
      stop('max_usd', `budget reached: $${roundUsd(report.usd)} spent of --max-usd ${options.maxUsd}`);
    }
    return { go: true, ...(outcome.resultCount === undefined ? {} : { count: outcome.resultCount }) };
  };

  const failure = (error: unknown, scope: DispatchScope, line: number): LaunchOutcome => {
    const message = describe(error);
    const answered = scope.lastStatus !== undefined && scope.lastStatus >= 200 && scope.lastStatus < 300;
    if (!scope.dispatched) {
      // Abandoned while waiting (the run stopped): nothing was sent, a later run sends it.
      return { state: 'failed', error: `not sent: ${message}` };
    }
    report.failed += 1;
    addProblem(report, { line, message });
    options.onProblem?.(line, message);
    if (error instanceof StorageError) {
      stop('storage', `the database failed: ${message}`);
      // The service answered: the job exists, so this row must not be paid for again.
      if (answered) return { state: 'launched', error: message };
      return { state: 'uncertain', error: message };
    }
    if (error instanceof ServiceError) {
      const reason = stoppingReasonOf(error);
      if (reason === 'quota') stop('quota', `the account is over quota (${error.code}): stopped launching`);
      else if (reason === 'auth') {
        stop('auth', `the service refused the API key (${error.code}): stopped launching`);
      }
      // No answer, or an answer we could not read: the service may have taken (and charged) the job.
      if (error.status === 0 || answered) return { state: 'uncertain', error: message };
      return { state: 'failed', error: message };
    }
    return { state: answered ? 'uncertain' : 'failed', error: message };
  };

  const total = file.valid;
  let done = 0;
  const rows = readRows(options.path, options.format);
  const worker = async (): Promise<void> => {
    try {
      await work();
    } catch (error) {
      stop('storage', `stopped: ${describe(error)}`);
      throw error;
    }
  };
  const work = async (): Promise<void> => {
    while (report.stopped === null) {
      const next = await rows.next();
      if (next.done) return;
      const row = next.value;
      if ('problem' in row) continue;
      const built = buildRequest(plan, row.cells);
      if (built.request === undefined) continue;
      const pages = plan.pages ?? 1;
      const first = typeof built.request.page_number === 'number' ? built.request.page_number : 1;
      const pageSize = typeof built.request.page_size === 'number' ? built.request.page_size : 10;
      for (let page = 0; page < pages && report.stopped === null; page += 1) {
        const request = pages === 1 ? built.request : { ...built.request, page_number: first + page };
        const sent = await send(request, row.line);
        // The last page is the first one shorter than page_size (or one that did not launch).
        if (!sent.go || (pages > 1 && (sent.count === undefined || sent.count < pageSize))) break;
      }
      done += 1;
      options.onProgress?.(report, done, total);
    }
  };

  try {
    if (operation.paced && deps.learnRateLimit !== undefined) {
      try {
        await deps.learnRateLimit();
      } catch (error) {
        if (error instanceof ServiceError && (error.status === 401 || error.status === 403)) {
          stop('auth', `the service refused the API key (${error.code}): nothing was launched`);
          return finish();
        }
        throw error;
      }
    }
    const concurrency =
      options.concurrency ?? (operation.paced ? DEFAULT_PACED_CONCURRENCY : DEFAULT_REVEAL_CONCURRENCY);
    const workers = Array.from({ length: concurrency }, () => worker());
    const settled = await Promise.allSettled(workers);
    const broken = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (broken !== undefined) throw broken.reason;
  } finally {
    deps.signal?.removeEventListener('abort', onInterrupt);
    await rows.return(undefined);
  }
  return finish();
}

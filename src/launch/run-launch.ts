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
import { LaunchBudget, personsOf, settleReservation, totalUsdOf } from './launch-budget.js';
import { launchRequest, stoppingReasonOf } from './launch-call.js';
import {
  claimLaunchRow,
  DIED_IN_FLIGHT,
  type LaunchOutcome,
  markDiedInFlight,
  recordLaunchOutcome,
} from './launch-records.js';
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
  /** Send again the rows an earlier run left `sending` or `uncertain` (default: report them, send nothing). */
  readonly resendUnknown?: boolean;
  readonly dryRun?: boolean;
  readonly skipInvalid?: boolean;
  /**
   * Spend limit in USD: each request reserves its price before it is sent (launch-budget.ts), and no
   * request starts that the limit cannot hold.
   */
  readonly maxUsd?: number | undefined;
  /** What one job (a person of a Search page) reserves until an answer has priced the operation. */
  readonly estimateUsd?: number | undefined;
  /** Default 4 for Search and Job Change, 8 for Company Reveal. */
  readonly concurrency?: number | undefined;
  /** Each problem as found. */
  readonly onProblem?: ((line: number, message: string) => void) | undefined;
  /** As soon as the header is read, when it lacks columns the plan names (throw to stop). */
  readonly onMissingColumns?: ((missingColumns: readonly string[]) => void) | undefined;
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
  let budget: LaunchBudget | undefined;
  const finish = (): LaunchReport => {
    report.usd = roundUsd(budget?.budget.spentUsd ?? report.usd);
    report.reserved_usd = roundUsd(budget?.budget.reservedUsd ?? 0);
    report.rate_limited = deps.tracker.rateLimited;
    report.elapsed_ms = now() - startedMs;
    return report;
  };

  const file = await validateRows(report, {
    plan,
    path: options.path,
    format: options.format,
    onProblem: options.onProblem,
    onMissingColumns: options.onMissingColumns,
    dryRun: options.dryRun ? { db: deps.db, sample: DRY_RUN_SAMPLE } : undefined,
  });
  options.onValidated?.(file, report);
  if (report.invalid > 0 && !options.skipInvalid) {
    report.stopped = 'invalid_rows';
    report.stopped_reason = `${report.invalid} of ${report.rows} rows are invalid: nothing was launched (fix them, or pass --skip-invalid)`;
    return finish();
  }
  if (options.dryRun) return finish();

  if (options.maxUsd !== undefined) {
    budget = await LaunchBudget.open(deps.db, operation.name, {
      capUsd: options.maxUsd,
      estimateUsd: options.estimateUsd,
      now,
    });
  }
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
    // Reserved before the claim, so that a refused row stays unclaimed for a later run.
    const reservation = await budget?.reserve(request, () => report.stopped !== null);
    if (budget !== undefined && reservation === undefined) {
      stop('max_usd', budget.describe());
      return { go: false };
    }
    const claim = await writer.submit((trx) =>
      claimLaunchRow(trx, {
        rowKey: key,
        operation: operation.name,
        requestText: JSON.stringify(request),
        runId,
        source: options.sourceName,
        line,
        again: options.again ?? false,
        resendUnknown: options.resendUnknown ?? false,
        now: new Date(now()),
      }),
    );
    if (!claim.claimed) {
      reservation?.release();
      const { state, run_id: earlierRun } = claim.existing;
      if (earlierRun !== runId && (state === 'sending' || state === 'uncertain')) {
        // The service may have this job, and only its answer would have said which: report, do not pay twice.
        if (state === 'sending') {
          await writer.submit((trx) => markDiedInFlight(trx, key, earlierRun, new Date(now())));
        }
        report.unresolved += 1;
        const message = `${state === 'sending' ? DIED_IN_FLIGHT : 'left uncertain by an earlier run: the service may have the job'}; not sent again (--resend-unknown sends it)`;
        addProblem(report, { line, message });
        options.onProblem?.(line, message);
        return { go: false };
      }
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
    let total: number | 'invalid' | undefined;
    try {
      result = await call(request, scope, controller.signal);
      total = totalUsdOf(result.response.job);
      outcome = {
        state: 'launched',
        jobId: result.job_id,
        status: result.status,
        usd: typeof total === 'number' ? total : undefined,
        resultCount: personsOf(result.response.job),
      };
    } catch (error) {
      outcome = failure(error, scope, line);
    } finally {
      active.delete(entry);
    }
    if (total === 'invalid') {
      // A negative or non-finite total is no price: the job counts at its reservation, never at less.
      const message = `the answer's usage.total_usd is not a price (negative or not finite); job ${result?.job_id} is counted at what it reserved`;
      addProblem(report, { line, message });
      options.onProblem?.(line, message);
    }
    if (reservation !== undefined) {
      if (outcome.state === 'failed') reservation.release();
      else if (result !== undefined) settleReservation(reservation, result, operation.name, budget);
      // An answer that may have bought a job, none read: the reservation stays.
      else reservation.hold();
    }
    await writer.submit((trx) => recordLaunchOutcome(trx, key, outcome, new Date(now())));
    if (result === undefined) return { go: false };
    report.launched += 1;
    if (result.stored !== undefined) report.stored += 1;
    report.usd += outcome.usd ?? 0;
    return { go: true, ...(outcome.resultCount === undefined ? {} : { count: outcome.resultCount }) };
  };

  const failure = (error: unknown, scope: DispatchScope, line: number): LaunchOutcome => {
    const message = describe(error);
    const answered = scope.lastStatus !== undefined && scope.lastStatus >= 200 && scope.lastStatus < 300;
    if (!scope.dispatched) {
      // Abandoned while waiting (the run stopped): nothing was sent, a later run sends it.
      return { state: 'failed', error: `not sent: ${message}` };
    }
    if (isKeyRefusal(error)) {
      // The key, not the row: one stop for the run (the row is sent again by the next run), no line per row.
      const what = report.launched === 0 ? 'nothing was launched' : 'stopped launching';
      stop('auth', `the service refused the API key (${(error as ServiceError).code}): ${what}`);
      return { state: 'failed', error: `not launched: ${message}` };
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
      if (stoppingReasonOf(error) === 'quota') {
        stop('quota', `the account is over quota (${error.code}): stopped launching`);
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
  const worker = async (maxRows?: number): Promise<void> => {
    try {
      await work(maxRows);
    } catch (error) {
      stop('storage', `stopped: ${describe(error)}`);
      throw error;
    }
  };
  const work = async (maxRows = Number.POSITIVE_INFINITY): Promise<void> => {
    let taken = 0;
    while (report.stopped === null && taken < maxRows) {
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
      taken += 1;
      done += 1;
      // Once stopped, the report says the rest: no progress line after the reason.
      if (report.stopped === null) options.onProgress?.(report, done, total);
    }
  };

  try {
    if (operation.paced && deps.learnRateLimit !== undefined) {
      try {
        await deps.learnRateLimit();
      } catch (error) {
        if (isKeyRefusal(error)) {
          stop(
            'auth',
            `the service refused the API key (${(error as ServiceError).code}): nothing was launched`,
          );
          return finish();
        }
        throw error;
      }
    } else {
      // The key has not been shown to the service yet: the first row goes alone, so that a refused key
      // stops the run after one request, not after one per worker.
      await worker(1);
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

/** A refusal of the key itself (401, 403, or an AUTH / PERMISSION error): no row can succeed after it. */
function isKeyRefusal(error: unknown): boolean {
  return stoppingReasonOf(error) === 'auth';
}

/**
 * What a bulk launch did: counts, money, why it stopped, and the problems found, as `--json` prints it.
 */

/** Why a run stopped before the end of the file; null when it did not. */
export type LaunchStop = 'invalid_rows' | 'quota' | 'max_usd' | 'auth' | 'storage' | 'interrupted';

/** One problem, at the line of the file it concerns (0 when it concerns no line). */
export interface LaunchProblem {
  readonly line: number;
  readonly message: string;
}

/** The summary of one run. */
export interface LaunchReport {
  readonly operation: string;
  /** Data rows in the file. */
  rows: number;
  /** Jobs launched by this run (one per row, or per page with --pages). */
  launched: number;
  /** Requests not sent because an earlier run (or an identical row) launched them. */
  skipped: number;
  /** Rows refused before anything was sent. */
  invalid: number;
  /** Requests that did not launch a job (refused, or no answer). */
  failed: number;
  /** Requests sent again (--resend-unknown) that an earlier run left in flight or unanswered (uncertain). */
  relaunched: number;
  /**
   * Requests not sent because an earlier run left them in flight (it died) or unanswered: the service may
   * have their jobs, whose job_id only the lost answer held. Listed in errors; --resend-unknown sends them.
   */
  unresolved: number;
  /** Launched jobs whose finished answer was stored at once (the rest wait for callback or reconcile). */
  stored: number;
  /** Sum of usage.total_usd of the answers (and, with --max-usd, of held jobs whose finished copy was stored). */
  usd: number;
  /** With --max-usd: still reserved at the end for jobs launched without a price yet (RUNNING). */
  reserved_usd: number;
  stopped: LaunchStop | null;
  /** The line that says why it stopped. */
  stopped_reason: string | null;
  errors: LaunchProblem[];
  /** Problems beyond the first {@link MAX_REPORTED_ERRORS}, counted but not listed. */
  errors_omitted: number;
  /** 429 answers met. */
  rate_limited: number;
  dry_run: boolean;
  /** Dry run: requests that would be sent (at most this many per row with --pages), and the first few. */
  would_launch?: number;
  sample?: Record<string, unknown>[];
  elapsed_ms: number;
}

/** Problems listed in a report; the rest are counted in errors_omitted. */
export const MAX_REPORTED_ERRORS = 1000;

/** An empty report for `operation`. */
export function createLaunchReport(operation: string, dryRun: boolean): LaunchReport {
  return {
    operation,
    rows: 0,
    launched: 0,
    skipped: 0,
    invalid: 0,
    failed: 0,
    relaunched: 0,
    unresolved: 0,
    stored: 0,
    usd: 0,
    reserved_usd: 0,
    stopped: null,
    stopped_reason: null,
    errors: [],
    errors_omitted: 0,
    rate_limited: 0,
    dry_run: dryRun,
    elapsed_ms: 0,
  };
}

/** Adds a problem to the report (listed while there is room). */
export function addProblem(report: LaunchReport, problem: LaunchProblem): void {
  if (report.errors.length < MAX_REPORTED_ERRORS) report.errors.push(problem);
  else report.errors_omitted += 1;
}

/** Money as the report shows it: cents, without binary noise. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

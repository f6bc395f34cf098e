/**
 * What a reconcile run did: the report the run returns, the JSON the CLI prints and the history keeps.
 */
import type { JobKind } from '../contract/enums.js';
import type { AnyErrorCode } from '../errors.js';

/** How a run ended. */
export type ReconcileStatus =
  /** Every due entry was looked at. */
  | 'completed'
  /** Key or quota trouble (401, 402, 403): stopped at once; `stop` names the code. */
  | 'stopped'
  /** Cancelled (signal, shutdown) or the lease was lost; what was done is kept. */
  | 'aborted'
  /** An unexpected failure (e.g. the database); `error` says what. */
  | 'failed'
  /** Another run holds the lease; nothing was done. `lease` says who. */
  | 'lease_held'
  /** --dry-run: nothing fetched or written; `would_fetch` lists what would be. */
  | 'dry_run';

/** The counters of a run. */
export interface ReconcileCounts {
  /** Due entries this run dealt with: fetched or tried, closed by the join, or not fetchable. */
  checked: number;
  /** Entries closed without a fetch because their job was already stored finished (webhook, launch). */
  already_received: number;
  /** Finder answers that carried the job (HTTP 200, any status). */
  fetched: number;
  /** Finished jobs stored by this run that had never arrived otherwise (callbacks lost). */
  recovered: number;
  /** `recovered` by job kind (read back by `hooksync_reconcile_recovered_total{kind}`). */
  recovered_by_kind: Partial<Record<JobKind, number>>;
  /** Entries still pending after this run: RUNNING, backing off after a failure, or rate limited. */
  still_pending: number;
  /** Of those, the jobs the finder showed as RUNNING (checked again by the next run). */
  running: number;
  /** Entries the finders do not know (NOT_FOUND_JOB_NOT_FOUND). */
  not_found: number;
  /** Entries given up in this run (too many failed attempts, or an id the finder refuses). */
  failed: number;
  /** Failed attempts that will be retried after a backoff. */
  retrying: number;
  /** 429 answers the client met during the run (each was waited out and retried). */
  rate_limited: number;
  /** Due Company Reveal entries: no finder exists, so they wait for their callback, left pending. */
  not_fetchable: number;
  /** Requests the client sent during the run (finder calls, retries, and the key list). */
  requests: number;
  duration_ms: number;
}

/** An entry --dry-run would fetch. */
export interface PlannedFetch {
  readonly job_id: string;
  readonly kind: string;
  readonly attempts: number;
  readonly created_at: string;
}

/** The report of one run. */
export interface ReconcileReport extends ReconcileCounts {
  status: ReconcileStatus;
  /** Id of the reconcile_runs row (undefined when no run was recorded: dry run, lease held). */
  run_id: string | undefined;
  /** This run's lease holder id (hostname:pid:random). */
  holder: string;
  started_at: string;
  finished_at: string;
  /** The options in force. */
  older_than_ms: number;
  limit: number | undefined;
  /** The rates the client paced by after learning (per_interval / interval_seconds). */
  pacing: readonly { perInterval: number; intervalSeconds: number }[];
  /** When `lease_held`: who holds the lease and until when. */
  lease?: { holder: string; expires_at: string };
  /** When `stopped`: the service's answer that stopped the run. */
  stop?: { code: AnyErrorCode; status: number; message: string };
  /** When `failed` or `aborted`: why. */
  error?: string;
  /** When `dry_run`: what would be fetched. */
  would_fetch?: PlannedFetch[];
}

/** Counters at zero. */
export function createEmptyCounts(): ReconcileCounts {
  return {
    checked: 0,
    already_received: 0,
    fetched: 0,
    recovered: 0,
    recovered_by_kind: {},
    still_pending: 0,
    running: 0,
    not_found: 0,
    failed: 0,
    retrying: 0,
    rate_limited: 0,
    not_fetchable: 0,
    requests: 0,
    duration_ms: 0,
  };
}

/** A few human lines for the terminal. */
export function formatReconcileSummary(report: ReconcileReport): string[] {
  if (report.status === 'lease_held') {
    return [
      `another reconcile run holds the lease: ${report.lease?.holder} (until ${report.lease?.expires_at})`,
    ];
  }
  if (report.status === 'dry_run') {
    const lines = (report.would_fetch ?? []).map(
      (p) => `${p.job_id}  ${p.kind}  attempts=${p.attempts}  since ${p.created_at}`,
    );
    return [
      ...lines,
      `dry run: would fetch ${report.would_fetch?.length ?? 0}; not fetchable (company_reveal) ${report.not_fetchable}`,
    ];
  }
  const lines = [
    `reconcile ${report.status} in ${(report.duration_ms / 1000).toFixed(1)} s: checked ${report.checked}, ` +
      `fetched ${report.fetched}, recovered ${report.recovered}, already received ${report.already_received}`,
    `still pending ${report.still_pending} (running ${report.running}, retrying ${report.retrying}), ` +
      `not found ${report.not_found}, failed ${report.failed}, not fetchable ${report.not_fetchable}, ` +
      `429 answers ${report.rate_limited}`,
  ];
  if (report.recovered > 0) {
    lines.push(`warning: ${report.recovered} job(s) had to be recovered: their callbacks never arrived`);
  }
  if (report.stop)
    lines.push(`stopped: ${report.stop.code} (HTTP ${report.stop.status}): ${report.stop.message}`);
  if (report.error) lines.push(`error: ${report.error}`);
  return lines;
}

/**
 * Reconcile's counters on the receiver's /metrics, read from the recorded runs (`reconcile_runs`), so that
 * they count every run whoever ran it: `serve --reconcile-cron`, a cron job, the CLI, another replica. The
 * documented "callbacks lost" alert (`increase(hooksync_reconcile_recovered_total[1d]) > 0`) then fires
 * however reconcile is scheduled. Each scrape reads the runs finished since the last one it read; the first
 * starts after the last run finished before this process started (a counter counts from its process's start).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import {
  type FinishedRun,
  type FinishedRunMark,
  latestFinishedRunMark,
  listRunsFinishedAfter,
} from '../reconcile/reconcile-history.js';
import type { Database } from '../storage/database.js';

/** The kinds reconcile can recover (the finders: Search Contact and Job Change). */
const FINDER_KINDS = ['search_contact', 'job_change'] as const;

/** Runs read per query while catching up. */
const PAGE = 500;

/**
 * Registers `hooksync_reconcile_runs_total{status}`, `hooksync_reconcile_recovered_total{kind}`,
 * `hooksync_reconcile_not_found_total` and `hooksync_reconcile_failed_total` on `registry`, each read from
 * `db` at scrape time. A database error skips that scrape's reading (logged), never the scrape.
 */
export function registerReconcileMetrics(
  registry: Registry,
  db: Kysely<Database>,
  options: { logger?: Logger } = {},
): void {
  let mark: Promise<FinishedRunMark | undefined> = latestFinishedRunMark(db).catch((error: unknown) => {
    options.logger?.warn({ err: error }, 'reconcile metrics: cannot read the recorded runs');
    return undefined;
  });
  let reading: Promise<void> | undefined;
  const runs = new Counter({
    name: 'hooksync_reconcile_runs_total',
    help: 'Reconcile runs that finished (in serve, from cron or the CLI), by status',
    labelNames: ['status'],
    registers: [registry],
    collect: () => readNew(),
  });
  const recovered = new Counter({
    name: 'hooksync_reconcile_recovered_total',
    help: 'Jobs recovered by reconcile that never arrived by webhook (callbacks are being lost)',
    labelNames: ['kind'],
    registers: [registry],
    collect: () => readNew(),
  });
  const notFound = new Counter({
    name: 'hooksync_reconcile_not_found_total',
    help: 'Ledger entries the finders do not know (NOT_FOUND_JOB_NOT_FOUND)',
    registers: [registry],
    collect: () => readNew(),
  });
  const failed = new Counter({
    name: 'hooksync_reconcile_failed_total',
    help: 'Ledger entries reconcile gave up on (too many failed attempts, or an id the finder refuses)',
    registers: [registry],
    collect: () => readNew(),
  });

  // Present at 0 from the first scrape: a series that first appears at 1 has no increase() over the window
  // that saw it appear, so the "callbacks lost" alert would miss the first recovered job.
  for (const kind of FINDER_KINDS) recovered.inc({ kind }, 0);

  function count(run: FinishedRun): void {
    runs.inc({ status: run.report?.status ?? run.status });
    const report = run.report;
    if (report === undefined) return;
    const byKind = Object.entries(report.recovered_by_kind ?? {});
    const listed = byKind.reduce((sum, [, n]) => sum + (n ?? 0), 0);
    for (const [kind, n] of byKind) if (n !== undefined && n > 0) recovered.inc({ kind }, n);
    // A run recorded before recovered_by_kind existed: its recoveries, of unknown kind.
    if (report.recovered > listed) recovered.inc({ kind: 'unknown' }, report.recovered - listed);
    if (report.not_found > 0) notFound.inc(report.not_found);
    if (report.failed > 0) failed.inc(report.failed);
  }

  async function read(): Promise<void> {
    let from = await mark;
    try {
      for (;;) {
        const page = await listRunsFinishedAfter(db, from, PAGE);
        for (const run of page) count(run);
        from = page.at(-1)?.mark ?? from;
        if (page.length < PAGE) break;
      }
    } catch (error) {
      options.logger?.warn({ err: error }, 'reconcile metrics: cannot read the recorded runs');
    } finally {
      mark = Promise.resolve(from);
    }
  }

  /** One reading shared by the four counters' collects of one scrape. */
  function readNew(): Promise<void> {
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  }
}

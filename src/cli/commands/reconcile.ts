/** `hooksync reconcile`: recover missing jobs through the finders. */
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { parseDuration } from '../../config/parse-duration.js';
import type { ReconcileProgress } from '../../reconcile/reconcile-entries.js';
import {
  DEFAULT_HISTORY_LIMIT,
  listReconcileRuns,
  type ReconcileRunRecord,
} from '../../reconcile/reconcile-history.js';
import { formatReconcileSummary, type ReconcileReport } from '../../reconcile/reconcile-report.js';
import {
  type CliContext,
  CliError,
  EXIT_ABORTED,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_USAGE,
  writeLine,
} from '../context.js';
import { createLogger } from '../create-logger.js';
import { loadCliConfig } from '../load-cli-config.js';
import {
  addDatabaseOption,
  addJsonOption,
  addLogLevelOption,
  addServiceOptions,
  parseLimit,
} from '../options.js';
import { startCliTelemetry } from '../start-cli-telemetry.js';
import { requireService } from './reveal.js';

/** Least time between two redraws of the progress bar. */
const PROGRESS_REDRAW_MS = 100;
const PROGRESS_WIDTH = 30;

interface ReconcileFlags {
  olderThan: string;
  limit?: string;
  dryRun?: boolean;
  history?: boolean;
  wait?: boolean;
  json?: boolean;
  apiBaseUrl?: string;
  apiKey?: string;
  databaseUrl?: string;
  logLevel?: string;
}

/** The exit code of a report: 0 when it did what it could, non-zero when it must be looked at. */
export function exitCodeOf(report: ReconcileReport): number {
  switch (report.status) {
    case 'completed':
    case 'dry_run':
    case 'lease_held':
      return EXIT_OK;
    case 'aborted':
      return EXIT_ABORTED;
    default:
      return EXIT_FAILURE;
  }
}

/** A one-line bar on stderr, redrawn in place; only on a terminal. */
function createProgressBar(stream: Writable): { update(p: ReconcileProgress): void; end(): void } {
  let lastDrawMs = 0;
  let drawn = false;
  const draw = (p: ReconcileProgress): void => {
    const ratio = p.total === 0 ? 1 : p.done / p.total;
    const filled = Math.round(ratio * PROGRESS_WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(PROGRESS_WIDTH - filled)}`;
    const { counts } = p;
    stream.write(
      `\r[${bar}] ${p.done}/${p.total} fetched ${counts.fetched} recovered ${counts.recovered} ` +
        `pending ${counts.still_pending} not found ${counts.not_found} failed ${counts.failed}\u001b[K`,
    );
    drawn = true;
  };
  return {
    update(p) {
      const nowMs = performance.now();
      if (p.done < p.total && nowMs - lastDrawMs < PROGRESS_REDRAW_MS) return;
      lastDrawMs = nowMs;
      draw(p);
    },
    end() {
      if (drawn) stream.write('\n');
    },
  };
}

function printHistory(ctx: CliContext, runs: readonly ReconcileRunRecord[], json: boolean): void {
  if (json) {
    writeLine(ctx.stdout, JSON.stringify(runs, null, 2));
    return;
  }
  if (runs.length === 0) {
    writeLine(ctx.stdout, 'no reconcile runs yet');
    return;
  }
  writeLine(
    ctx.stdout,
    'started_at                status     checked fetched recovered pending not_found failed holder',
  );
  for (const run of runs) {
    const r = run.report;
    const cell = (value: number | undefined, width: number): string => String(value ?? '-').padStart(width);
    writeLine(
      ctx.stdout,
      `${run.started_at.padEnd(25)} ${run.status.padEnd(10)} ${cell(r?.checked, 7)} ${cell(r?.fetched, 7)} ` +
        `${cell(r?.recovered, 9)} ${cell(r?.still_pending, 7)} ${cell(r?.not_found, 9)} ${cell(r?.failed, 6)} ${run.holder}`,
    );
  }
}

export function registerReconcileCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('reconcile')
    .description(
      'fetch pending ledger entries through the finder endpoints and store what the service returns',
    )
    .option('--older-than <duration>', 'only entries at least this old, e.g. 15m, 2h, 0s', '15m')
    .option('--limit <n>', 'at most this many entries (with --history: runs shown, default 20)')
    .option('--dry-run', 'list what would be fetched, fetch nothing')
    .option('--history', 'show past runs instead of running')
    .option('--wait', 'wait for the lease when another run holds it');
  addJsonOption(command);
  addServiceOptions(command);
  addDatabaseOption(command);
  addLogLevelOption(command);
  command.action(async (flags: ReconcileFlags) => {
    let olderThanMs: number;
    try {
      olderThanMs = parseDuration(flags.olderThan);
    } catch (error) {
      throw new CliError(`--older-than: ${(error as Error).message}`, EXIT_USAGE);
    }
    const limit = parseLimit(flags.limit);
    const config = loadCliConfig(ctx.env, {
      apiBaseUrl: flags.apiBaseUrl,
      apiKey: flags.apiKey,
      databaseUrl: flags.databaseUrl,
      logLevel: flags.logLevel,
    });
    const { withMigratedDatabase } = await import('../../storage/open-migrated-database.js');
    if (flags.history) {
      const runs = await withMigratedDatabase(config.databaseUrl, (database) =>
        listReconcileRuns(database.db, limit ?? DEFAULT_HISTORY_LIMIT),
      );
      printHistory(ctx, runs, Boolean(flags.json));
      return;
    }
    // A dry run sends nothing, so it works without an account configured.
    const service = flags.dryRun
      ? { baseUrl: config.apiBaseUrl ?? 'http://127.0.0.1', apiKey: config.apiKey ?? 'unused' }
      : requireService(config);
    const logger = createLogger(config.logLevel, ctx.stderr);
    const { createClient } = await import('../../client/create-client.js');
    const { runReconcile } = await import('../../reconcile/run-reconcile.js');
    const { createJobStore } = await import('../../storage/job-store/job-store.js');
    // OTel on (OTEL_EXPORTER_OTLP_*ENDPOINT): the run a span, its finder calls client spans; flushed at the end.
    const telemetry = flags.dryRun ? undefined : await startCliTelemetry(ctx.env);
    const client = createClient({
      ...service,
      logger,
      ...(telemetry ? { fetch: telemetry.tracedFetch() } : {}),
    });
    const abort = new AbortController();
    void ctx.shutdown.then((signal) => abort.abort(new Error(`interrupted by ${signal}`)));
    const progress = ctx.interactive && !flags.dryRun ? createProgressBar(ctx.stderr) : undefined;

    const report = await withMigratedDatabase(config.databaseUrl, async (database) => {
      const store = createJobStore({ database, logger });
      try {
        return await runReconcile(
          {
            db: database.db,
            client,
            store,
            logger,
            signal: abort.signal,
            telemetry,
            ...(progress ? { onProgress: (p: ReconcileProgress) => progress.update(p) } : {}),
          },
          {
            olderThanMs,
            ...(limit !== undefined ? { limit } : {}),
            dryRun: Boolean(flags.dryRun),
            wait: Boolean(flags.wait),
          },
        );
      } finally {
        progress?.end();
        await store.close();
        await telemetry?.shutdown();
      }
    });
    logger.flush();
    if (flags.json) writeLine(ctx.stdout, JSON.stringify(report, null, 2));
    else for (const line of formatReconcileSummary(report)) writeLine(ctx.stdout, line);
    if (report.status === 'stopped' && report.stop) {
      writeLine(
        ctx.stderr,
        `hooksync: reconcile stopped by ${report.stop.code} (HTTP ${report.stop.status}); nothing marked`,
      );
    } else if (report.status === 'failed') {
      writeLine(ctx.stderr, `hooksync: reconcile failed: ${report.error}`);
    }
    ctx.setExitCode(exitCodeOf(report));
  });
}

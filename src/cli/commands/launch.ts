/** `hooksync launch search | job-change | reveal --from FILE`: start jobs in bulk from a file. */
import { basename } from 'node:path';
import { type Command, Option } from 'commander';
import { CONFIG_VARIABLES, joinUrl } from '../../config/load-config.js';
import { isHttpUrl } from '../../contract/formats.js';
import { InputError } from '../../errors.js';
import { createRequestPlan, type RequestPlan } from '../../launch/build-request.js';
import { LAUNCH_OPERATIONS, type LaunchOperation, OPERATIONS } from '../../launch/launch-operations.js';
import type { LaunchReport } from '../../launch/launch-report.js';
import {
  assertInputReadable,
  formatOfPath,
  INPUT_FORMATS,
  type InputFormat,
  spoolToFile,
} from '../../launch/read-rows.js';
import { parseRateSpec } from '../../simulator/api-key-registry.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { launchAnswerBudgetBytes } from '../bounded-thread.js';
import { type CliContext, CliError, EXIT_FAILURE, EXIT_USAGE, writeLine } from '../context.js';
import { createLogger } from '../create-logger.js';
import { loadCliConfig } from '../load-cli-config.js';
import { addDatabaseOption, addJsonOption, addLogLevelOption, addServiceOptions } from '../options.js';
import { traceCommand } from '../start-cli-telemetry.js';
import { requireService } from './reveal.js';

interface LaunchFlags {
  from: string;
  format?: InputFormat;
  map: string[];
  set: string[];
  carry: string[];
  pages?: string;
  webhookUrl?: string;
  maxUsd?: string;
  estimateUsd?: string;
  dryRun?: boolean;
  again?: boolean;
  resendUnknown?: boolean;
  skipInvalid?: boolean;
  concurrency?: string;
  rate?: string;
  launchPath?: string;
  json?: boolean;
  apiBaseUrl?: string;
  apiKey?: string;
  databaseUrl?: string;
  logLevel?: string;
}

/** One example per operation, shown by --help. */
const EXAMPLES: Readonly<Record<LaunchOperation, string>> = {
  search: `  # VP-and-above Sales contacts at each account of accounts.csv (a "domain" column), 3 pages each
  hooksync launch search --from accounts.csv --set 'seniorities=Vice President,CXO' \\
    --set departments=Sales --set page_size=25 --pages 3 --carry account_id=Id`,
  'job-change': `  # check every contact of contacts.csv for a job change, carrying the CRM record id
  hooksync launch job-change --from contacts.csv --map professional_email=Email \\
    --map contact_full_name='Full Name' --carry sf_id=Id`,
  reveal: `  # the companies behind yesterday's visitor IPs (one "ip" column; or JSON lines)
  hooksync launch reveal --from visitors.csv --max-usd 25`,
};

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new CliError(`${flag} must be a positive integer (got "${value}")`, EXIT_USAGE);
  }
  return Number(value);
}

function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new CliError(`${flag} must be a positive number (got "${value}")`, EXIT_USAGE);
  }
  return n;
}

function usage<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof TypeError) throw new CliError(error.message, EXIT_USAGE);
    throw error;
  }
}

function summaryLines(report: LaunchReport): string[] {
  if (report.dry_run) {
    const lines = [
      `dry run: ${report.rows} rows, ${report.invalid} invalid; would launch ${report.would_launch ?? 0} jobs (rows already launched left out); nothing was sent`,
    ];
    for (const request of report.sample ?? []) lines.push(`  ${JSON.stringify(request)}`);
    return lines;
  }
  const parts = [
    `${report.launched} launched`,
    `${report.skipped} skipped (already launched)`,
    `${report.failed} failed`,
    `${report.invalid} invalid`,
  ];
  if (report.relaunched > 0) parts.push(`${report.relaunched} relaunched (left uncertain by an earlier run)`);
  if (report.unresolved > 0)
    parts.push(`${report.unresolved} unresolved (an earlier run may have bought them: see the lines above)`);
  const reserved =
    report.reserved_usd > 0
      ? ` (and $${report.reserved_usd.toFixed(2)} reserved for jobs still RUNNING)`
      : '';
  return [
    `${report.operation}: ${report.rows} rows: ${parts.join(', ')}; ${report.stored} stored at once, $${report.usd.toFixed(2)} spent${reserved}`,
  ];
}

async function runLaunchCommand(
  operation: LaunchOperation,
  flags: LaunchFlags,
  ctx: CliContext,
  telemetry?: Telemetry,
): Promise<void> {
  const config = loadCliConfig(ctx.env, {
    apiBaseUrl: flags.apiBaseUrl,
    apiKey: flags.apiKey,
    databaseUrl: flags.databaseUrl,
    logLevel: flags.logLevel,
  });
  const spec = OPERATIONS[operation];
  const webhookUrl =
    flags.webhookUrl ?? (config.publicUrl === undefined ? undefined : joinUrl(config.publicUrl, '/webhooks'));
  if (webhookUrl !== undefined && !isHttpUrl(webhookUrl)) {
    throw new CliError(`--webhook-url must be an http(s) URL (got "${webhookUrl}")`, EXIT_USAGE);
  }
  const plan: RequestPlan = usage(() =>
    createRequestPlan(spec, {
      map: flags.map,
      set: flags.set,
      carry: flags.carry,
      webhookUrl,
      pages: positiveInteger('--pages', flags.pages),
    }),
  );
  const maxUsd = positiveNumber('--max-usd', flags.maxUsd);
  const estimateUsd = positiveNumber('--estimate-usd', flags.estimateUsd);
  if (estimateUsd !== undefined && maxUsd === undefined) {
    throw new CliError('--estimate-usd is what --max-usd reserves: give --max-usd too', EXIT_USAGE);
  }
  const concurrency = positiveInteger('--concurrency', flags.concurrency);
  const rateLimit = flags.rate === undefined ? undefined : usage(() => parseRateSpec(flags.rate ?? ''));
  const service = flags.dryRun ? undefined : requireService(config);
  const launchPath =
    flags.launchPath ?? (operation === 'search' ? config.searchContactPath : config.jobChangePath);
  if (launchPath !== undefined && !launchPath.startsWith('/')) {
    throw new CliError(`--launch-path must start with "/" (got "${launchPath}")`, EXIT_USAGE);
  }

  const logger = createLogger(config.logLevel, ctx.stderr);
  const spooled = flags.from === '-' ? await spoolToFile(ctx.stdin) : undefined;
  const path = spooled?.path ?? flags.from;
  const format = flags.format ?? (flags.from === '-' ? 'csv' : formatOfPath(flags.from));
  if (spooled === undefined) {
    // A missing file is one line naming it, before a database is opened (or created) for nothing.
    await assertInputReadable(path).catch((error: unknown) => {
      throw error instanceof InputError ? new CliError(error.message, EXIT_FAILURE) : error;
    });
  }
  const { createClient } = await import('../../client/create-client.js');
  const { createLauncher } = await import('../../launch/create-launcher.js');
  const { createJobStore } = await import('../../storage/job-store/job-store.js');
  const { openMigratedDatabase } = await import('../../storage/open-migrated-database.js');
  const { DispatchTracker } = await import('../../launch/dispatch-tracker.js');
  const { runLaunch } = await import('../../launch/run-launch.js');
  const { createProgressReporter } = await import('../../launch/launch-progress.js');

  const tracker = new DispatchTracker();
  const client = createClient({
    baseUrl: service?.baseUrl ?? 'http://127.0.0.1:1',
    apiKey: service?.apiKey ?? 'dry-run',
    ...config.clientLimits,
    answerBudgetBytes: launchAnswerBudgetBytes(config.clientLimits),
    fetch: telemetry ? telemetry.tracedFetch(tracker.fetch) : tracker.fetch,
    logger,
    ...(rateLimit === undefined ? {} : { rateLimit }),
    paths: {
      ...(operation === 'search' && launchPath !== undefined ? { searchContactLaunch: launchPath } : {}),
      ...(operation === 'job-change' && launchPath !== undefined ? { jobChangeLaunch: launchPath } : {}),
    },
  });
  const database = await openMigratedDatabase(config.databaseUrl, { logger });
  const store = createJobStore({ database, logger });
  const interrupt = new AbortController();
  void ctx.shutdown.then(() => interrupt.abort());
  const progress = createProgressReporter({ stream: ctx.stderr, interactive: ctx.interactive, logger });
  let report: LaunchReport;
  try {
    report = await runLaunch(
      {
        db: database.db,
        // One info line per job would drown the progress lines: the launcher speaks at debug only.
        launcher: createLauncher({
          client,
          store,
          db: database.db,
          logger: logger.isLevelEnabled('debug') ? logger : logger.child({}, { level: 'warn' }),
        }),
        tracker,
        learnRateLimit: () => client.learnRateLimit(),
        // The reason a run stopped is printed once, as its last line: not also as a log line.
        logger: logger.isLevelEnabled('debug') ? logger : logger.child({}, { level: 'error' }),
        signal: interrupt.signal,
      },
      {
        plan,
        path,
        format,
        sourceName: flags.from === '-' ? 'stdin' : basename(flags.from),
        again: flags.again ?? false,
        resendUnknown: flags.resendUnknown ?? false,
        dryRun: flags.dryRun ?? false,
        skipInvalid: flags.skipInvalid ?? false,
        maxUsd,
        estimateUsd,
        concurrency,
        onProblem: (line, message) => writeLine(ctx.stderr, `line ${line}: ${message}`),
        onMissingColumns: (missing) => {
          throw missingColumnsError(flags.from === '-' ? 'stdin' : basename(flags.from), missing);
        },
        onValidated: (file) => {
          if (file.missingColumns.length > 0) {
            throw missingColumnsError(
              flags.from === '-' ? 'stdin' : basename(flags.from),
              file.missingColumns,
            );
          }
          if (file.unusedColumns.length > 0) {
            writeLine(ctx.stderr, `note: columns not used: ${file.unusedColumns.join(', ')}`);
          }
        },
        onProgress: (r, done, total) => progress.update(r, done, total),
      },
    );
  } catch (error) {
    if (error instanceof InputError) throw new CliError(error.message, EXIT_FAILURE);
    throw error;
  } finally {
    progress.end();
    await store.close();
    await database.close();
    await spooled?.remove();
    logger.flush();
  }
  if (report.rows === 0) {
    writeLine(
      ctx.stderr,
      `warning: ${flags.from === '-' ? 'stdin' : flags.from} has 0 rows: nothing to launch`,
    );
  }
  if (flags.json) writeLine(ctx.stdout, JSON.stringify(report));
  else if (report.stopped !== 'auth' || report.launched > 0) {
    // A refused key launched nothing: its one line (below) says all there is to say.
    for (const line of summaryLines(report)) writeLine(ctx.stdout, line);
  }
  if (report.stopped_reason !== null) writeLine(ctx.stderr, `hooksync: ${report.stopped_reason}`);
  if (report.stopped !== null || report.failed > 0 || report.unresolved > 0) ctx.setExitCode(EXIT_FAILURE);
}

/** Registers `hooksync launch` and its three operations. */
export function registerLaunchCommand(program: Command, ctx: CliContext): void {
  const launch = program
    .command('launch')
    .description('start jobs in bulk from a CSV or JSON-lines file: validated first, paced, resumable')
    .addHelpText('after', `\nExamples:\n${LAUNCH_OPERATIONS.map((op) => EXAMPLES[op]).join('\n')}\n`);
  const descriptions: Record<LaunchOperation, string> = {
    search: 'a Search Contact job per row (per page with --pages)',
    'job-change': 'a Job Change check per row',
    reveal: 'a Company Reveal per row (not rate-limited by the service: bounded concurrency)',
  };
  for (const operation of LAUNCH_OPERATIONS) {
    const command = launch
      .command(operation)
      .description(descriptions[operation])
      .requiredOption('--from <file>', 'CSV with a header row, .jsonl/.ndjson JSON lines, or - for stdin')
      .addOption(
        new Option('--format <format>', 'input format (default: by extension, csv for -)').choices(
          INPUT_FORMATS,
        ),
      )
      .option(
        '--map <field=column>',
        'fill a request field from a column of another name (repeatable)',
        collect,
        [],
      )
      .option(
        '--set <field=value>',
        'the same value for every row, typed like a cell (repeatable)',
        collect,
        [],
      )
      .option(
        '--carry <key[=column]>',
        'copy a column into custom_fields under key (repeatable)',
        collect,
        [],
      )
      .option(
        '--webhook-url <url>',
        `callback address (default: ${CONFIG_VARIABLES.publicUrl} + /webhooks when set)`,
      )
      .option(
        '--max-usd <usd>',
        'spend limit: each request reserves its price before it is sent (the highest usage.total_usd seen, held while RUNNING); none starts past the limit',
      )
      .option(
        '--estimate-usd <usd>',
        `what --max-usd reserves per ${operation === 'search' ? 'person of a page' : 'job'} before an answer has priced it (default: all that is left, one request at a time)`,
      )
      .option('--dry-run', 'validate and show what would be launched; send nothing')
      .option('--again', 'launch rows that an earlier run already launched')
      .option(
        '--resend-unknown',
        'send again the rows an earlier run left in flight or unanswered (the service may already have them)',
      )
      .option('--skip-invalid', 'launch the valid rows and list the invalid ones')
      .option('--concurrency <n>', `requests in flight at once (default ${operation === 'reveal' ? 8 : 4})`);
    if (operation === 'search')
      command.option('--pages <n>', 'pages 1..n of each row, up to the first short page');
    if (operation !== 'reveal') {
      command
        .option('--rate <per/seconds>', "pacing ceiling (default 50/60; the key's own rate is learned too)")
        .option(
          '--launch-path <path>',
          `launcher path (env ${operation === 'search' ? CONFIG_VARIABLES.searchContactPath : CONFIG_VARIABLES.jobChangePath}, default /v1/${operation === 'search' ? 'search/contact' : 'job/change'})`,
        );
    }
    addJsonOption(command);
    addServiceOptions(command);
    addDatabaseOption(command);
    addLogLevelOption(command);
    command.addHelpText('after', `\nExample:\n${EXAMPLES[operation]}\n`);
    command.action((flags: LaunchFlags) =>
      traceCommand(ctx.env, `launch ${operation}`, (telemetry) =>
        runLaunchCommand(operation, flags, ctx, telemetry),
      ),
    );
  }
}

/** The one line for a file whose header lacks columns named by `--map` or `--carry`. */
function missingColumnsError(source: string, missing: readonly string[]): CliError {
  return new CliError(
    `${source} has no column ${missing.map((c) => `"${c}"`).join(', ')} (named by --map or --carry)`,
    EXIT_USAGE,
  );
}

/** `hooksync export`: write stored results as CSV or CRM import files. */
import { type Command, Option } from 'commander';
import { parseDuration } from '../../config/parse-duration.js';
import type { JobKind } from '../../contract/enums.js';
import { JOB_CHANGE_STATUSES, type JobChangeStatus } from '../../contract/enums.js';
import { CSV_DIALECT_NAMES, type CsvDialectName } from '../../export/csv-dialects.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../export/export-formats.js';
import type { ExportReport } from '../../export/run-export.js';
import { type CliContext, CliError, EXIT_USAGE, writeLine } from '../context.js';
import { loadCliConfig, requireExistingDatabase } from '../load-cli-config.js';
import { addDatabaseOption } from '../options.js';

const KINDS: readonly JobKind[] = ['search_contact', 'job_change', 'company_reveal'];
/**
 * SQLite page cache of the export's own connection, in KiB: an export reads each page about once, so the
 * 16 MiB better-sqlite3 default only adds to the peak RSS (1,000,000 persons: about 130 MB instead of 145).
 */
export const EXPORT_SQLITE_CACHE_KIB = 4096;

interface ExportCommandOptions {
  template: string;
  out: string;
  format: ExportFormat;
  kind?: JobKind;
  since?: string;
  sinceLast?: boolean;
  dialect?: CsvDialectName;
  all?: boolean;
  jobChangeStatus?: string;
  includeEmpty?: boolean;
  watch?: string;
  changesSince?: string;
  databaseUrl?: string;
}

export function registerExportCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('export')
    .description('stream stored rows through a template into a CSV, CRM import, JSON lines or Parquet file')
    .requiredOption(
      '--template <name|path>',
      'a built-in template name (see templates list) or a template file',
    )
    .option('--out <file>', 'output file (written whole or not at all), or - for stdout', '-')
    .addOption(
      new Option(
        '--format <format>',
        'csv, jsonl (one JSON object per row) or parquet (typed columns; docs/data-contract.md)',
      )
        .choices(EXPORT_FORMATS)
        .default('csv'),
    )
    .addOption(new Option('--kind <kind>', 'only rows from jobs of this kind').choices(KINDS))
    .addOption(new Option('--since <iso>', 'only rows stored at or after this time').conflicts('sinceLast'))
    .option(
      '--since-last',
      'only rows stored since the last complete export with this template (moves its cursor)',
    )
    .addOption(
      new Option('--dialect <dialect>', "CSV only: excel or crm-import (default: the template's)").choices(
        CSV_DIALECT_NAMES,
      ),
    )
    .option(
      '--watch <name>',
      'only rows of the jobs in which this watch found a change (the movers of a watch; docs/watches.md)',
    )
    .option('--changes-since <duration>', 'with --watch: only changes found in this last span, e.g. 7d')
    .option('--all', 'export every occurrence of a person (or company), not only the newest')
    .option(
      '--job-change-status <list>',
      "keep only job changes with these statuses (comma-separated moved,left,no_change,unknown), or all for no status filter (default: the template's filter)",
    )
    .option(
      '--include-empty',
      "ignore the template's present filter: e.g. with companies, also the reveals that found no company",
    );
  addDatabaseOption(command);
  command.action((options: ExportCommandOptions) => exportCommand(ctx, options));
}

/** The export's modules, loaded when the command runs: every other command starts without them. */
async function loadExportModules() {
  const [
    { sql },
    { EXPORT_SOURCES },
    { loadTemplate },
    { runExport },
    { migrateToLatest },
    { openDatabase },
  ] = await Promise.all([
    import('kysely'),
    import('../../export/export-sources.js'),
    import('../../export/load-template.js'),
    import('../../export/run-export.js'),
    import('../../storage/migrate-to-latest.js'),
    import('../../storage/open-database.js'),
  ]);
  return { sql, EXPORT_SOURCES, loadTemplate, runExport, migrateToLatest, openDatabase };
}

async function exportCommand(ctx: CliContext, options: ExportCommandOptions): Promise<void> {
  const { sql, EXPORT_SOURCES, loadTemplate, runExport, migrateToLatest, openDatabase } =
    await loadExportModules();
  if (options.dialect !== undefined && options.format !== 'csv') {
    throw new CliError(`--dialect applies to CSV only, not --format ${options.format}`, EXIT_USAGE);
  }
  const since = options.since === undefined ? undefined : parseSince(options.since);
  const jobChangeStatuses =
    options.jobChangeStatus === undefined ? undefined : parseJobChangeStatuses(options.jobChangeStatus);
  const watchChanges = parseWatchChanges(options);
  const template = await loadTemplate(options.template);
  const source = EXPORT_SOURCES[template.source];
  if (options.kind !== undefined && !source.kinds.includes(options.kind)) {
    throw new CliError(
      `template ${template.name} reads ${source.name}, whose rows come from ${source.kinds.join(' or ')} jobs, not ${options.kind}`,
      EXIT_USAGE,
    );
  }
  const config = loadCliConfig(ctx.env, { databaseUrl: options.databaseUrl });
  await requireExistingDatabase(config.databaseUrl);
  const database = await openDatabase(config.databaseUrl);
  try {
    const migration = await migrateToLatest(database);
    if (migration.error !== undefined) {
      throw new CliError(`cannot migrate the database: ${migration.error.message}`, undefined, {
        cause: migration.error,
      });
    }
    if (database.dialect === 'sqlite') {
      await sql.raw(`PRAGMA cache_size = -${EXPORT_SQLITE_CACHE_KIB}`).execute(database.db);
    }
    const progress = createProgress(ctx);
    // SIGINT / SIGTERM stop the export between two rows: the temporary file is removed, the cursor stays.
    const interrupt = new AbortController();
    void ctx.shutdown.then((signal) =>
      interrupt.abort(new CliError(`export interrupted by ${signal}: nothing written`)),
    );
    let report: ExportReport;
    try {
      report = await runExport(database.db, template, {
        out: options.out,
        stdout: ctx.stdout,
        format: options.format,
        dialect: options.dialect,
        since,
        sinceLast: options.sinceLast === true,
        kind: options.kind,
        watchChanges,
        all: options.all === true,
        jobChangeStatuses,
        includeEmpty: options.includeEmpty === true,
        onProgress: progress.update,
        signal: interrupt.signal,
      });
    } finally {
      progress.done();
    }
    writeLine(ctx.stderr, summarize(report));
  } finally {
    await database.close();
  }
}

function parseWatchChanges(
  options: ExportCommandOptions,
): { watch: string; since: Date | undefined } | undefined {
  if (options.watch === undefined) {
    if (options.changesSince !== undefined) throw new CliError('--changes-since needs --watch', EXIT_USAGE);
    return undefined;
  }
  if (options.changesSince === undefined) return { watch: options.watch, since: undefined };
  let ms: number;
  try {
    ms = parseDuration(options.changesSince);
  } catch (error) {
    throw new CliError(`--changes-since: ${(error as Error).message}`, EXIT_USAGE);
  }
  return { watch: options.watch, since: new Date(Date.now() - ms) };
}

function parseSince(text: string): Date {
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(ms)) {
    throw new CliError(`--since must be an ISO 8601 date or date-time (got "${text}")`, EXIT_USAGE);
  }
  return new Date(ms);
}

function parseJobChangeStatuses(text: string): readonly JobChangeStatus[] | 'all' {
  if (text.trim() === 'all') return 'all';
  const statuses = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const known: readonly string[] = JOB_CHANGE_STATUSES;
  const unknown = statuses.filter((s) => !known.includes(s));
  if (statuses.length === 0 || unknown.length > 0) {
    throw new CliError(
      `--job-change-status takes ${JOB_CHANGE_STATUSES.join(', ')} (comma-separated) or all (got "${text}")`,
      EXIT_USAGE,
    );
  }
  return statuses as JobChangeStatus[];
}

/** A progress line on a terminal (redrawn in place), nothing otherwise. */
function createProgress(ctx: CliContext): { update: (rows: number) => void; done: () => void } {
  if (!ctx.interactive) return { update: () => {}, done: () => {} };
  let drawn = false;
  return {
    update(rows) {
      ctx.stderr.write(`\rexporting… ${rows.toLocaleString('en-US')} rows`);
      drawn = true;
    },
    done() {
      if (drawn) ctx.stderr.write('\n');
    },
  };
}

function summarize(report: ExportReport): string {
  const where = report.out === '-' ? 'stdout' : report.out;
  const rows = `${report.rows.toLocaleString('en-US')} ${report.rows === 1 ? 'row' : 'rows'}`;
  const shape = report.format === 'csv' ? report.dialect : report.format;
  let line = `exported ${rows} with template ${report.template} (${shape}) to ${where}`;
  if (report.cursorKey !== undefined) {
    line += `; stored ${report.since === undefined ? 'from the start' : `from ${report.since}`} until ${report.until}, cursor ${report.cursorKey} moved`;
  }
  return line;
}

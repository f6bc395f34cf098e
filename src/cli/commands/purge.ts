/** `hooksync purge`: delete stored data for retention and privacy requests. */
import type { Command } from 'commander';
import { parseDuration } from '../../config/parse-duration.js';
import { parseLinkedinUrl } from '../../storage/purge-linkedin-url.js';
import { PURGE_TABLES, type PurgeReport, totalPurged } from '../../storage/purge-report.js';
import { type CliContext, CliError, EXIT_USAGE, writeLine } from '../context.js';
import { loadCliConfig, requireExistingDatabase } from '../load-cli-config.js';
import { addDatabaseOption, addJsonOption } from '../options.js';
import { printTable } from '../print-table.js';

interface PurgeFlags {
  olderThan?: string;
  person?: string;
  includeJobs?: boolean;
  dryRun?: boolean;
  json?: boolean;
  databaseUrl?: string;
}

/** Most job ids listed on a terminal when envelopes mentioning a person are kept (--json lists all). */
const MAX_LISTED_JOBS = 20;

/** Registers `hooksync purge`. */
export function registerPurgeCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('purge')
    .description(
      'delete stored jobs and rows older than a duration, or everything about one person (give exactly one of --older-than, --person)',
    )
    .option('--older-than <duration>', 'jobs and rows stored longer ago than this, e.g. 90d')
    .option(
      '--person <linkedin_url>',
      'every row about this person (compared trimmed, case-insensitively, without trailing slash)',
    )
    .option(
      '--include-jobs',
      "with --person: also delete the stored envelopes that mention the person, with everyone's rows in them",
    )
    .option('--dry-run', 'count what would be deleted, delete nothing');
  addJsonOption(command);
  addDatabaseOption(command);
  command.action((flags: PurgeFlags) => purgeCommand(ctx, flags));
}

async function purgeCommand(ctx: CliContext, flags: PurgeFlags): Promise<void> {
  const request = parseRequest(flags);
  const config = loadCliConfig(ctx.env, { databaseUrl: flags.databaseUrl });
  await requireExistingDatabase(config.databaseUrl);
  const dryRun = flags.dryRun === true;
  const { withMigratedDatabase } = await import('../../storage/open-migrated-database.js');
  const { purgeOlderThan } = await import('../../storage/purge-older-than.js');
  const { purgePerson } = await import('../../storage/purge-person.js');
  const report = await withMigratedDatabase(config.databaseUrl, (database) =>
    request.mode === 'older_than'
      ? purgeOlderThan(database.db, { olderThanMs: request.olderThanMs, dryRun })
      : purgePerson(database, {
          linkedinUrl: request.linkedinUrl,
          includeJobs: flags.includeJobs === true,
          dryRun,
        }),
  );
  if (flags.json === true) writeLine(ctx.stdout, JSON.stringify(report, null, 2));
  else printReport(ctx, report);
}

type PurgeRequest = { mode: 'older_than'; olderThanMs: number } | { mode: 'person'; linkedinUrl: string };

/** Exactly one of --older-than and --person; --include-jobs only with --person. */
function parseRequest(flags: PurgeFlags): PurgeRequest {
  const given = [flags.olderThan, flags.person].filter((value) => value !== undefined).length;
  if (given !== 1) {
    throw new CliError(
      'purge needs exactly one of --older-than <duration> or --person <linkedin_url>',
      EXIT_USAGE,
    );
  }
  if (flags.includeJobs === true && flags.person === undefined) {
    throw new CliError('--include-jobs goes with --person', EXIT_USAGE);
  }
  if (flags.olderThan !== undefined) {
    try {
      return { mode: 'older_than', olderThanMs: parseDuration(flags.olderThan) };
    } catch (error) {
      throw new CliError(`--older-than: ${(error as Error).message}`, EXIT_USAGE);
    }
  }
  const linkedinUrl = flags.person!;
  try {
    parseLinkedinUrl(linkedinUrl);
  } catch (error) {
    throw new CliError(`--person: ${(error as Error).message}`, EXIT_USAGE);
  }
  return { mode: 'person', linkedinUrl };
}

function printReport(ctx: CliContext, report: PurgeReport): void {
  const verb = report.dry_run ? 'would delete' : 'deleted';
  const what =
    report.mode === 'older_than' ? `stored before ${report.cutoff}` : `about ${report.person ?? ''}`;
  writeLine(
    ctx.stdout,
    `${report.dry_run ? 'dry run: ' : ''}${verb} ${totalPurged(report.deleted)} rows ${what}`,
  );
  printTable(
    ctx.stdout,
    ['TABLE', report.dry_run ? 'WOULD DELETE' : 'DELETED'],
    PURGE_TABLES.map((table) => ({
      TABLE: table,
      [report.dry_run ? 'WOULD DELETE' : 'DELETED']: report.deleted[table],
    })),
  );
  const mentioning = report.jobs_mentioning ?? [];
  if (report.mode !== 'person' || mentioning.length === 0) return;
  writeLine(ctx.stdout, '');
  if (report.include_jobs === true) {
    writeLine(
      ctx.stdout,
      `${mentioning.length} stored ${plural(mentioning.length, 'envelope')} mentioning the person ${report.dry_run ? 'would be' : 'were'} deleted whole, with every row read from them.`,
    );
    return;
  }
  writeLine(
    ctx.stdout,
    `${mentioning.length} stored ${plural(mentioning.length, 'envelope')} still ${mentioning.length === 1 ? 'mentions' : 'mention'} the person (kept: verbatim records that may hold other people):`,
  );
  for (const jobId of mentioning.slice(0, MAX_LISTED_JOBS)) writeLine(ctx.stdout, `  ${jobId}`);
  if (mentioning.length > MAX_LISTED_JOBS) {
    writeLine(ctx.stdout, `  … and ${mentioning.length - MAX_LISTED_JOBS} more (--json lists them all)`);
  }
  writeLine(
    ctx.stdout,
    'Inspect them with `hooksync jobs get <job_id>`; add --include-jobs to delete them and all their rows.',
  );
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

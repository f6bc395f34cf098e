/** `hooksync jobs list|get`: read stored jobs. */
import type { Command } from 'commander';
import { JOB_KINDS } from '../../contract/enums.js';
import { isJobId } from '../../contract/job-id.js';
import { type CliContext, CliError, EXIT_USAGE, writeLine } from '../context.js';
import { loadCliConfig, requireExistingDatabase } from '../load-cli-config.js';
import { addDatabaseOption, addJsonOption, parseLimit } from '../options.js';
import { printTable } from '../print-table.js';

interface ListFlags {
  kind?: string;
  status?: string;
  limit?: string;
  json?: boolean;
  databaseUrl?: string;
}

export function registerJobsCommand(program: Command, ctx: CliContext): void {
  const jobs = program.command('jobs').description('read stored jobs');
  const list = jobs
    .command('list')
    .description('list stored jobs, newest first (all that match unless --limit is given)')
    .option('--kind <kind>', `one of ${JOB_KINDS.join(', ')}`)
    .option(
      '--status <status>',
      'RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED (as the service spells it)',
    )
    .option('--limit <n>', 'at most this many');
  addJsonOption(list);
  addDatabaseOption(list);
  list.action(async (flags: ListFlags) => {
    if (flags.kind !== undefined && !(JOB_KINDS as readonly string[]).includes(flags.kind)) {
      throw new CliError(`--kind must be one of ${JOB_KINDS.join(', ')} (got "${flags.kind}")`, EXIT_USAGE);
    }
    const limit = parseLimit(flags.limit);
    const config = loadCliConfig(ctx.env, { databaseUrl: flags.databaseUrl });
    await requireExistingDatabase(config.databaseUrl);
    const { listJobs } = await import('../../storage/job-queries.js');
    const { withMigratedDatabase } = await import('../../storage/open-migrated-database.js');
    const rows = await withMigratedDatabase(config.databaseUrl, ({ db }) =>
      listJobs(db, {
        ...(flags.kind !== undefined ? { kind: flags.kind as (typeof JOB_KINDS)[number] } : {}),
        ...(flags.status !== undefined ? { status: flags.status } : {}),
        ...(limit !== undefined ? { limit } : {}),
      }),
    );
    const summaries = rows.map((row) => ({
      job_id: row.job_id,
      kind: row.kind,
      status: row.status,
      source: row.source,
      received_at: row.received_at,
      updated_at: row.updated_at,
      schema_valid: row.schema_valid === 1,
    }));
    if (flags.json) {
      writeLine(ctx.stdout, JSON.stringify(summaries, null, 2));
      return;
    }
    printTable(ctx.stdout, ['job_id', 'kind', 'status', 'source', 'received_at'], summaries);
  });

  const get = jobs
    .command('get')
    .description('print one stored envelope on stdout, exactly as it was stored (with or without --json)')
    .argument('<job_id>', 'the job id');
  addJsonOption(get);
  addDatabaseOption(get);
  get.action(async (jobId: string, flags: { databaseUrl?: string }) => {
    if (!isJobId(jobId)) throw new CliError(`job_id must be a UUID (got "${jobId}")`, EXIT_USAGE);
    const config = loadCliConfig(ctx.env, { databaseUrl: flags.databaseUrl });
    await requireExistingDatabase(config.databaseUrl);
    const { getJob } = await import('../../storage/job-queries.js');
    const { withMigratedDatabase } = await import('../../storage/open-migrated-database.js');
    const row = await withMigratedDatabase(config.databaseUrl, ({ db }) => getJob(db, jobId));
    if (row === undefined) throw new CliError(`no stored job ${jobId}`);
    // The envelope is already JSON, stored verbatim: printing it as is keeps it byte for byte.
    ctx.stdout.write(row.envelope);
  });
}

/** `hooksync track`: add expected jobs to the ledger. */
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { ValidationError } from '../../errors.js';
import {
  isTrackableKind,
  TRACKABLE_KINDS,
  type TrackableKind,
  validateExpectedJobs,
} from '../../storage/ledger/parse-expected-jobs.js';
import { parseJobIdList } from '../../storage/ledger/parse-job-id-list.js';
import type { ExpectedJob } from '../../storage/ledger/record-expected-jobs.js';
import { type CliContext, CliError, EXIT_FAILURE, EXIT_USAGE, writeLine } from '../context.js';
import { loadCliConfig } from '../load-cli-config.js';
import { addDatabaseOption } from '../options.js';

interface TrackFlags {
  kind?: string;
  from?: string;
  databaseUrl?: string;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function readInput(from: string, ctx: CliContext): Promise<string> {
  if (from === '-') return readAll(ctx.stdin);
  try {
    return await readFile(from, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${from}: ${(error as Error).message}`, EXIT_FAILURE, { cause: error });
  }
}

/** The ids to record, validated whole; a bad one fails the command with every bad id on stderr. */
async function collectJobs(
  ids: readonly string[],
  flags: TrackFlags,
  ctx: CliContext,
): Promise<ExpectedJob[]> {
  const kind = flags.kind as TrackableKind | undefined;
  try {
    if (flags.from !== undefined) return parseJobIdList(await readInput(flags.from, ctx), kind);
    return validateExpectedJobs(
      ids.map((id, index) => ({ job_id: id.trim(), kind: undefined, where: `argument ${index + 1}` })),
      kind,
    );
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    if (error.issues.length > 3) for (const issue of error.issues) writeLine(ctx.stderr, `  ${issue}`);
    throw new CliError(error.message, EXIT_FAILURE, { cause: error });
  }
}

export function registerTrackCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('track')
    .description(
      'record job ids that hooksync should expect, so that reconcile can recover them if their callback is lost',
    )
    .argument('[job_id...]', 'job ids (UUIDs)')
    .option('--kind <kind>', 'job_change, search_contact or company_reveal')
    .option(
      '--from <file>',
      'read ids from a file: one per line, or a CSV with a job_id column (and optionally kind); - for stdin',
    );
  addDatabaseOption(command);
  command.action(async (ids: string[], flags: TrackFlags) => {
    if (flags.kind !== undefined && !isTrackableKind(flags.kind)) {
      throw new CliError(
        `--kind must be one of ${TRACKABLE_KINDS.join(', ')} (got "${flags.kind}")`,
        EXIT_USAGE,
      );
    }
    if (ids.length > 0 && flags.from !== undefined)
      throw new CliError('give job ids or --from, not both', EXIT_USAGE);
    if (ids.length === 0 && flags.from === undefined) {
      throw new CliError('give job ids, or --from FILE (- for stdin)', EXIT_USAGE);
    }
    if (flags.from === undefined && flags.kind === undefined) {
      throw new CliError(`--kind is required (${TRACKABLE_KINDS.join(', ')})`, EXIT_USAGE);
    }
    const jobs = await collectJobs(ids, flags, ctx);
    const config = loadCliConfig(ctx.env, { databaseUrl: flags.databaseUrl });
    const { recordExpectedJobs } = await import('../../storage/ledger/record-expected-jobs.js');
    const { openMigratedDatabase } = await import('../../storage/open-migrated-database.js');
    const database = await openMigratedDatabase(config.databaseUrl);
    try {
      const added = await recordExpectedJobs(database.db, jobs, 'track', new Date());
      writeLine(
        ctx.stdout,
        `tracked ${jobs.length} job id(s): ${added} new, ${jobs.length - added} already in the ledger`,
      );
    } finally {
      await database.close();
    }
  });
}

/** `hooksync jobs list|get`: read stored jobs. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption, addJsonOption } from '../options.js';

export function registerJobsCommand(program: Command, _ctx: CliContext): void {
  const jobs = program.command('jobs').description('read stored jobs');
  const list = jobs
    .command('list')
    .description('list stored jobs (all that match unless --limit is given)')
    .option('--kind <kind>', 'company_reveal, job_change, search_contact or unknown')
    .option('--status <status>', 'RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED')
    .option('--limit <n>', 'at most this many, newest first');
  addJsonOption(list);
  addDatabaseOption(list);
  list.action(() => notImplemented('jobs list'));
  const get = jobs
    .command('get')
    .description('print one stored envelope exactly as it was stored')
    .argument('<job_id>', 'the job id');
  addJsonOption(get);
  addDatabaseOption(get);
  get.action(() => notImplemented('jobs get'));
}

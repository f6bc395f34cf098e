/** `hooksync track`: add expected jobs to the ledger. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption } from '../options.js';

export function registerTrackCommand(program: Command, _ctx: CliContext): void {
  const command = program
    .command('track')
    .description(
      'record job ids that hooksync should expect, so that reconcile can recover them if their callback is lost',
    )
    .argument('[job_id...]', 'job ids (UUIDs)')
    .option('--kind <kind>', 'job_change, search_contact or company_reveal')
    .option(
      '--from <file>',
      'read ids from a file: one per line, or a CSV with a job_id column; - for stdin',
    );
  addDatabaseOption(command);
  command.action(() => notImplemented('track'));
}

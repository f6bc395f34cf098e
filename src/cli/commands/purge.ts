/** `hooksync purge`: delete stored data for retention and privacy requests. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption } from '../options.js';

export function registerPurgeCommand(program: Command, _ctx: CliContext): void {
  const command = program
    .command('purge')
    .description('delete stored jobs and rows older than a duration, or everything about one person')
    .option('--older-than <duration>', 'e.g. 90d')
    .option('--person <linkedin_url>', 'every stored row about this person')
    .option('--dry-run', 'count what would be deleted, delete nothing');
  addDatabaseOption(command);
  command.action(() => notImplemented('purge'));
}

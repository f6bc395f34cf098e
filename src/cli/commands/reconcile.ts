/** `hooksync reconcile`: recover missing jobs through the finders. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption, addJsonOption, addLogLevelOption, addServiceOptions } from '../options.js';

export function registerReconcileCommand(program: Command, _ctx: CliContext): void {
  const command = program
    .command('reconcile')
    .description(
      'fetch pending ledger entries through the finder endpoints and store what the service returns',
    )
    .option('--older-than <duration>', 'only entries at least this old, e.g. 15m, 2h, 0s', '15m')
    .option('--limit <n>', 'at most this many entries')
    .option('--dry-run', 'list what would be fetched, fetch nothing')
    .option('--history', 'show past runs instead of running')
    .option('--wait', 'wait for the lease when another run holds it');
  addJsonOption(command);
  addServiceOptions(command);
  addDatabaseOption(command);
  addLogLevelOption(command);
  command.action(() => notImplemented('reconcile'));
}

/** `hooksync quarantine list`: refused callbacks and why. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption, addJsonOption } from '../options.js';

export function registerQuarantineCommand(program: Command, _ctx: CliContext): void {
  const quarantine = program
    .command('quarantine')
    .description('callbacks that were refused, with the reason');
  const list = quarantine.command('list').description('list quarantined callbacks, newest first');
  addJsonOption(list);
  addDatabaseOption(list);
  list.action(() => notImplemented('quarantine list'));
}

/** `hooksync migrate`: bring the database schema up to date. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption } from '../options.js';

export function registerMigrateCommand(program: Command, _ctx: CliContext): void {
  const command = program.command('migrate').description('create or upgrade the database schema');
  addDatabaseOption(command);
  command.action(() => notImplemented('migrate'));
}

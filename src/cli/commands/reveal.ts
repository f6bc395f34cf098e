/** `hooksync reveal`: launch a company reveal and store its result. */
import type { Command } from 'commander';
import { type CliContext, notImplemented } from '../context.js';
import { addDatabaseOption, addJsonOption, addServiceOptions } from '../options.js';

export function registerRevealCommand(program: Command, _ctx: CliContext): void {
  const command = program
    .command('reveal')
    .description('reveal the company behind an IPv4 address; the result is stored at once')
    .argument('<ip>', 'IPv4 address')
    .option('--webhook-url <url>', 'callback URL for the finished job')
    .option(
      '--custom-field <key=value>',
      'a custom field (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [],
    );
  addJsonOption(command);
  addServiceOptions(command);
  addDatabaseOption(command);
  command.action(() => notImplemented('reveal'));
}

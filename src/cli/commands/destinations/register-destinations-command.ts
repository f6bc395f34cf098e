/**
 * `hooksync destinations list|replay|backfill|resume|test|deliver|setup|purge`: the onward delivery of stored
 * jobs, one subcommand per file beside this one.
 */
import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { registerBackfillCommand } from './backfill.js';
import { registerDeliverCommand } from './deliver.js';
import { registerListCommand } from './list.js';
import { registerPurgeCommand } from './purge.js';
import { registerReplayCommand } from './replay.js';
import { registerResumeCommand } from './resume.js';
import { registerSetupCommand } from './setup.js';
import { registerTestCommand } from './test.js';

/** Registers `destinations` and its subcommands on `program`. */
export function registerDestinationsCommand(program: Command, ctx: CliContext): void {
  const destinations = program
    .command('destinations')
    .description('hand each stored job on to webhooks and file drops (docs/destinations.md)');
  registerListCommand(destinations, ctx);
  registerReplayCommand(destinations, ctx);
  registerBackfillCommand(destinations, ctx);
  registerResumeCommand(destinations, ctx);
  registerTestCommand(destinations, ctx);
  registerDeliverCommand(destinations, ctx);
  registerSetupCommand(destinations, ctx);
  registerPurgeCommand(destinations, ctx);
}

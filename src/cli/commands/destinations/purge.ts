/** `hooksync destinations purge <name> --failed`: deletes a destination's failed events. */
import type { Command } from 'commander';
import { type CliContext, writeLine } from '../../context.js';
import { addCommonOptions, assertKnown, type CommonFlags, withDestinations } from './with-destinations.js';

/** Registers `purge` under `destinations`. */
export function registerPurgeCommand(destinations: Command, ctx: CliContext): void {
  const purge = destinations
    .command('purge')
    .description(
      'delete the failed events of a destination (given up on for good; replay them instead to retry)',
    )
    .argument('<name>', 'the destination')
    .requiredOption('--failed', 'the failed events (required: the only kind purged by hand)');
  addCommonOptions(purge);
  purge.action(async (name: string, flags: CommonFlags) => {
    const { purgeFailedEvents } = await import('../../../destinations/destination-admin.js');
    const count = await withDestinations(ctx, flags, async (database) => {
      await assertKnown(database, name);
      return purgeFailedEvents(database.db, name);
    });
    writeLine(ctx.stdout, `${count} failed event(s) of ${name} deleted`);
  });
}

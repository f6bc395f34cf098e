/** `hooksync destinations list`: each destination with its state, counts and running totals. */
import type { Command } from 'commander';
import { describeCounters } from '../../../destinations/destination-counters.js';
import { type CliContext, writeLine } from '../../context.js';
import { addJsonOption } from '../../options.js';
import { printTable } from '../../print-table.js';
import { addCommonOptions, type CommonFlags, withDestinations } from './with-destinations.js';

/** Registers `list` under `destinations`. */
export function registerListCommand(destinations: Command, ctx: CliContext): void {
  const list = destinations
    .command('list')
    .description(
      'each destination with its state and counts: pending, delivered, failed, oldest pending age, last error',
    );
  addJsonOption(list);
  addCommonOptions(list);
  list.action(async (flags: CommonFlags & { json?: boolean }) => {
    const { listDestinationStates } = await import('../../../destinations/destination-admin.js');
    const states = await withDestinations(ctx, flags, (database) =>
      listDestinationStates(database.db, Date.now()),
    );
    if (flags.json) {
      writeLine(ctx.stdout, JSON.stringify(states, null, 2));
      return;
    }
    printTable(
      ctx.stdout,
      ['name', 'type', 'paused', 'pending', 'delivered', 'failed', 'oldest_pending', 'last_error'],
      states.map((state) => ({
        ...state,
        name: state.active ? state.name : `${state.name} (removed)`,
        paused: state.paused_until !== null ? `until ${state.paused_until}` : state.paused ? 'yes' : 'no',
        oldest_pending:
          state.oldest_pending_age_seconds === null ? '' : `${state.oldest_pending_age_seconds}s`,
        last_error: state.last_error?.slice(0, 80),
      })),
    );
    for (const state of states) {
      const counters = describeCounters(state.counters);
      if (counters !== '') writeLine(ctx.stdout, `${state.name}: ${counters}`);
    }
  });
}

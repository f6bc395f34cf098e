/** `hooksync destinations test <name>`: one check of a destination, and what it answered. */
import type { Command } from 'commander';
import { type CliContext, CliError, EXIT_FAILURE, writeLine } from '../../context.js';
import {
  addCommonOptions,
  type CommonFlags,
  createForCommand,
  needConfigured,
  withDestinations,
} from './with-destinations.js';

/** Registers `test` under `destinations`. */
export function registerTestCommand(destinations: Command, ctx: CliContext): void {
  const test = destinations
    .command('test')
    .description(
      'check a destination: a webhook gets one signed ping event, a CRM destination one read that proves the token and its read scopes, a slack or email destination one test message per channel or address its routes name; prints the answer',
    )
    .argument('<name>', 'the destination');
  addCommonOptions(test);
  test.action(async (name: string, flags: CommonFlags) => {
    // The check runs while the database is open: a destination may keep state there (a CRM
    // destination's shared pace and counters).
    const { result, check } = await withDestinations(
      ctx,
      flags,
      async (database, all) => {
        const configured = needConfigured(all, name);
        const destination = await createForCommand(configured, database);
        if (destination.kind !== 'outbox') {
          throw new CliError(
            `${name} is a ${configured.type} destination: it has nothing to ping (try destinations deliver)`,
          );
        }
        const { canDryRun } = await import('../../../destinations/crm/crm-destination.js');
        const result = await destination.ping(AbortSignal.timeout(configured.dispatch!.timeoutMs));
        return { result, check: canDryRun(destination) };
      },
      // The README's setup pings a destination before serve has ever run.
      { create: true },
    );
    // A CRM destination is checked by a read (it has no ping to send): say what the read proved.
    if (result.outcome === 'delivered') {
      const what = check
        ? `checked: ${result.detail ?? 'the CRM answered'}`
        : result.detail !== undefined
          ? result.detail
          : 'ping delivered';
      writeLine(ctx.stdout, `${name}: ${what} (HTTP ${result.status})`);
      return;
    }
    throw new CliError(
      `${name}: ${check ? 'check failed' : 'ping not delivered'}: ${result.error}`,
      EXIT_FAILURE,
    );
  });
}

/**
 * `hooksync destinations setup <name> [--dry-run] [--json]`: prepares the CRM of a destination that has a
 * setup (a HubSpot portal: custom properties, adoption of the records it holds; a Salesforce org: checks of
 * its fields, its API allocation, adoption; a Pipedrive company: the key fields, adoption). Reads and changes
 * the CRM only through the destination; never prints the token.
 */
import type { Command } from 'commander';
import { type CliContext, CliError, EXIT_FAILURE, writeLine } from '../../context.js';
import { addJsonOption } from '../../options.js';
import { printSetupReport } from './print-setup-report.js';
import {
  addCommonOptions,
  type CommonFlags,
  createForCommand,
  needConfigured,
  withDestinations,
} from './with-destinations.js';

/** How long setup and a dry run may take in all (search is paced at 4 calls per second). */
export const CRM_COMMAND_TIMEOUT_MS = 3_600_000;

/** Registers `setup` under `destinations`. */
export function registerSetupCommand(destinations: Command, ctx: CliContext): void {
  const setup = destinations
    .command('setup')
    .description(
      'prepare a CRM: create (HubSpot, Pipedrive) or check (Salesforce) the key fields, and adopt the companies and contacts it already holds',
    )
    .argument('<name>', 'the destination')
    .option('--dry-run', 'read only: say what would be created and adopted');
  addJsonOption(setup);
  addCommonOptions(setup);
  setup.action(async (name: string, flags: CommonFlags & { dryRun?: boolean; json?: boolean }) => {
    const report = await withDestinations(
      ctx,
      flags,
      async (database, all) => {
        const configured = needConfigured(all, name);
        const destination = await createForCommand(configured, database);
        const { setupOf } = await import('../../../destinations/crm/crm-destination.js');
        const setUp = setupOf(destination);
        if (setUp === undefined)
          throw new CliError(`${name} is a ${configured.type} destination: it has no setup`);
        try {
          return await setUp({
            dryRun: flags.dryRun === true,
            signal: AbortSignal.timeout(CRM_COMMAND_TIMEOUT_MS),
          });
        } catch (error) {
          throw new CliError(`${name}: setup stopped: ${(error as Error).message}`, EXIT_FAILURE);
        }
      },
      { create: true },
    );
    if (flags.json) writeLine(ctx.stdout, JSON.stringify({ destination: name, ...report }, null, 2));
    else printSetupReport(ctx, name, report);
    if (report.problems.length > 0)
      throw new CliError(`${name}: setup found ${report.problems.length} problem(s)`, EXIT_FAILURE);
  });
}

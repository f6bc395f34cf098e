/**
 * The HubSpot parts of `hooksync destinations`: `setup <name>` (custom properties, adoption of existing
 * companies; `--dry-run`) and the printing of `replay <name> --dry-run`. Reads and changes HubSpot only
 * through the destination; never prints the token.
 */
import type { Command } from 'commander';
import type { DryRunReport } from '../../destinations/hubspot/dry-run-replay.js';
import type { HubSpotDestination } from '../../destinations/hubspot/hubspot-destination.js';
import type { ConfiguredDestination } from '../../destinations/load-destinations.js';
import type { HooksyncDatabase } from '../../storage/open-database.js';
import { type CliContext, CliError, EXIT_FAILURE, writeLine } from '../context.js';
import { addJsonOption } from '../options.js';

/** How long setup and a dry run may take in all (search is paced at 4 calls per second). */
const HUBSPOT_COMMAND_TIMEOUT_MS = 3_600_000;

/** The HubSpot destination `name`, created for one command; a CliError when it is of another type. */
export async function createHubSpotDestination(
  configured: ConfiguredDestination,
  database: HooksyncDatabase,
  what: string,
): Promise<HubSpotDestination> {
  if (configured.type !== 'hubspot') {
    throw new CliError(`${configured.name} is a ${configured.type} destination: ${what} is for hubspot ones`);
  }
  const { pino } = await import('pino');
  return configured.create({
    database,
    logger: pino({ level: 'silent' }),
    now: Date.now,
    fetch: globalThis.fetch,
  }) as HubSpotDestination;
}

/** A signal for a long HubSpot command. */
export const hubSpotCommandSignal = () => AbortSignal.timeout(HUBSPOT_COMMAND_TIMEOUT_MS);

function changesText(changes: DryRunReport['records'][number]['changes']): string {
  return changes
    .map(
      (change) =>
        `${change.property}: ${change.from === undefined ? '(empty)' : JSON.stringify(change.from)} → ${JSON.stringify(change.to)}`,
    )
    .join('; ');
}

/** Prints a replay dry run: one line per record, then the totals. */
export function printDryRun(ctx: CliContext, name: string, report: DryRunReport, json: boolean): void {
  if (json) {
    writeLine(ctx.stdout, JSON.stringify({ destination: name, dry_run: true, ...report }, null, 2));
    return;
  }
  for (const record of report.records) {
    const what = `${record.action.padEnd(6)} ${record.object} ${record.key || '(no key)'}`;
    const why =
      record.action === 'skip' || record.action === 'failed'
        ? (record.reason ?? 'nothing to change under the write policy')
        : changesText(record.changes);
    writeLine(ctx.stdout, `${what}: ${why}`);
    for (const warning of record.warnings) writeLine(ctx.stdout, `       left out: ${warning}`);
  }
  const count = (action: string) => report.records.filter((record) => record.action === action).length;
  writeLine(
    ctx.stdout,
    `${name} (dry run, nothing written): ${report.events} event(s); ${count('create')} to create, ${count('update')} to update, ${count('skip')} skipped, ${report.associations} association(s); about ${report.calls} API call(s)`,
  );
}

/** `destinations setup <name> [--dry-run] [--json]`. */
export function registerSetupCommand(
  destinations: Command,
  ctx: CliContext,
  addCommonOptions: (command: Command) => Command,
  run: <T>(
    name: string,
    flags: object,
    body: (database: HooksyncDatabase, configured: ConfiguredDestination) => Promise<T>,
  ) => Promise<T>,
): void {
  const setup = destinations
    .command('setup')
    .description(
      'prepare a HubSpot portal: create the custom properties and adopt the companies and contacts it already holds',
    )
    .argument('<name>', 'the destination')
    .option('--dry-run', 'read only: say what would be created and adopted');
  addJsonOption(setup);
  addCommonOptions(setup);
  setup.action(async (name: string, flags: { dryRun?: boolean; json?: boolean }) => {
    const report = await run(name, flags, async (database, configured) => {
      const destination = await createHubSpotDestination(configured, database, 'setup');
      try {
        return await destination.setupPortal({
          dryRun: flags.dryRun === true,
          signal: hubSpotCommandSignal(),
        });
      } catch (error) {
        throw new CliError(`${name}: setup stopped: ${(error as Error).message}`, EXIT_FAILURE);
      }
    });
    if (flags.json) {
      writeLine(ctx.stdout, JSON.stringify({ destination: name, ...report }, null, 2));
    } else {
      const verb = report.dryRun ? 'would create' : 'created';
      for (const property of report.properties)
        writeLine(
          ctx.stdout,
          `${verb} ${property.object} property ${property.name}${property.unique ? ' (unique)' : ''}`,
        );
      for (const adopted of report.adopted)
        writeLine(
          ctx.stdout,
          `${report.dryRun ? 'would adopt' : 'adopted'} company ${adopted.id} (${adopted.domain})`,
        );
      for (const ambiguous of report.ambiguous)
        writeLine(
          ctx.stdout,
          `ambiguous: ${ambiguous.domain} matches companies ${ambiguous.ids.join(', ')}: not adopted, merge them in HubSpot`,
        );
      for (const adopted of report.adoptedContacts)
        writeLine(
          ctx.stdout,
          `${report.dryRun ? 'would adopt' : 'adopted'} contact ${adopted.id} (${adopted.linkedinUrl})`,
        );
      for (const ambiguous of report.ambiguousContacts)
        writeLine(
          ctx.stdout,
          `ambiguous: ${ambiguous.linkedinUrl} matches contacts ${ambiguous.ids.join(', ')}: not adopted, merge them in HubSpot`,
        );
      for (const problem of report.problems) writeLine(ctx.stdout, `problem: ${problem}`);
      writeLine(
        ctx.stdout,
        `${name}: ${report.properties.length} property(ies) ${verb.split(' ').pop()}, ${report.adopted.length} company(ies) and ${report.adoptedContacts.length} contact(s) ${report.dryRun ? 'to adopt' : 'adopted'}, ${report.ambiguous.length + report.ambiguousContacts.length} ambiguous, ${report.alreadyKeyed + report.contactsAlreadyKeyed} already keyed`,
      );
    }
    if (report.problems.length > 0)
      throw new CliError(`${name}: setup found ${report.problems.length} problem(s)`, EXIT_FAILURE);
  });
}

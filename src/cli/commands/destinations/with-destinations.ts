/**
 * What every `hooksync destinations` subcommand shares: the common options, the configuration and the
 * destinations file loaded, the database opened (and the file's routing recorded first), and a
 * destination looked up by name.
 */
import type { Command } from 'commander';
import type { ConfiguredDestination } from '../../../destinations/load-destinations.js';
import type { HooksyncDatabase } from '../../../storage/open-database.js';
import { type CliContext, CliError, EXIT_USAGE } from '../../context.js';
import { loadCliConfig, requireExistingDatabase } from '../../load-cli-config.js';
import { addDatabaseOption } from '../../options.js';

/** The options every subcommand takes. */
export interface CommonFlags {
  databaseUrl?: string;
  destinations?: string;
  logLevel?: string;
}

const FILE_HELP = 'the destinations JSON file (env HOOKSYNC_DESTINATIONS)';

/** Adds `--destinations` and the database option. */
export function addCommonOptions(command: Command): Command {
  command.option('--destinations <file>', FILE_HELP);
  return addDatabaseOption(command);
}

/**
 * Loads the configuration (and the destinations file, when one is named), opens the database and, with a
 * file, records its routing first, so that the database matches the file this command was given. Without
 * a file the command only reads and changes events, so a SQLite file that does not exist is refused by name
 * (a typo, not an empty outbox) unless `create` says otherwise.
 */
export async function withDestinations<T>(
  ctx: CliContext,
  flags: CommonFlags,
  run: (database: HooksyncDatabase, configured: readonly ConfiguredDestination[] | undefined) => Promise<T>,
  { create = false }: { create?: boolean } = {},
): Promise<T> {
  const config = loadCliConfig(ctx.env, {
    databaseUrl: flags.databaseUrl,
    destinationsFile: flags.destinations,
  });
  if (!create && config.destinationsFile === undefined) await requireExistingDatabase(config.databaseUrl);
  const { loadDestinations } = await import('../../../destinations/load-destinations.js');
  const { syncDestinations } = await import('../../../destinations/outbox.js');
  const configured =
    config.destinationsFile === undefined
      ? undefined
      : await loadDestinations(config.destinationsFile, ctx.env);
  const { withMigratedDatabase } = await import('../../../storage/open-migrated-database.js');
  return withMigratedDatabase(config.databaseUrl, async (database) => {
    if (configured !== undefined) await syncDestinations(database.db, configured, new Date().toISOString());
    return run(database, configured);
  });
}

/** Refuses a name the database does not know. */
export async function assertKnown(database: HooksyncDatabase, name: string): Promise<void> {
  const { isKnownDestination } = await import('../../../destinations/destination-admin.js');
  if (!(await isKnownDestination(database.db, name)))
    throw new CliError(`no destination named "${name}" (see hooksync destinations list)`);
}

/** The destinations file's entries (a usage error without a file); with `name`, that one. */
export function needConfigured(
  configured: readonly ConfiguredDestination[] | undefined,
): readonly ConfiguredDestination[];
export function needConfigured(
  configured: readonly ConfiguredDestination[] | undefined,
  name: string,
): ConfiguredDestination;
export function needConfigured(configured: readonly ConfiguredDestination[] | undefined, name?: string) {
  if (configured === undefined) {
    throw new CliError(
      'this command needs the destinations file: --destinations <file> or HOOKSYNC_DESTINATIONS',
      EXIT_USAGE,
    );
  }
  if (name === undefined) return configured;
  const found = configured.find((destination) => destination.name === name);
  if (found === undefined) throw new CliError(`no destination named "${name}" in the destinations file`);
  return found;
}

/** Creates the configured destination for one command, its logs silenced. */
export async function createForCommand(configured: ConfiguredDestination, database: HooksyncDatabase) {
  const { pino } = await import('pino');
  return configured.create({
    database,
    logger: pino({ level: 'silent' }),
    now: Date.now,
    fetch: globalThis.fetch,
  });
}

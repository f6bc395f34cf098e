/** `hooksync destinations list|replay|resume|test|deliver|purge`: the onward delivery of stored jobs. */
import type { Command } from 'commander';
import { isJobId } from '../../contract/job-id.js';
import { describeCounters } from '../../destinations/destination-counters.js';
import type { ConfiguredDestination } from '../../destinations/load-destinations.js';
import type { HooksyncDatabase } from '../../storage/open-database.js';
import { type CliContext, CliError, EXIT_FAILURE, EXIT_USAGE, writeLine } from '../context.js';
import { createLogger } from '../create-logger.js';
import { loadCliConfig, requireExistingDatabase } from '../load-cli-config.js';
import { addDatabaseOption, addJsonOption, addLogLevelOption } from '../options.js';
import { printTable } from '../print-table.js';
import { registerSetupCommand } from './destinations-hubspot.js';

interface CommonFlags {
  databaseUrl?: string;
  destinations?: string;
  logLevel?: string;
}

const FILE_HELP = 'the destinations JSON file (env HOOKSYNC_DESTINATIONS)';

function addCommonOptions(command: Command): Command {
  command.option('--destinations <file>', FILE_HELP);
  return addDatabaseOption(command);
}

/**
 * Loads the configuration (and the destinations file, when one is named), opens the database and, with a
 * file, records its routing first, so that the database matches the file this command was given. Without
 * a file the command only reads and changes events, so a SQLite file that does not exist is refused by name
 * (a typo, not an empty outbox) unless `create` says otherwise.
 */
async function withDestinations<T>(
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
  const { loadDestinations } = await import('../../destinations/load-destinations.js');
  const { syncDestinations } = await import('../../destinations/outbox.js');
  const configured =
    config.destinationsFile === undefined
      ? undefined
      : await loadDestinations(config.destinationsFile, ctx.env);
  const { withMigratedDatabase } = await import('../../storage/open-migrated-database.js');
  return withMigratedDatabase(config.databaseUrl, async (database) => {
    if (configured !== undefined) await syncDestinations(database.db, configured, new Date().toISOString());
    return run(database, configured);
  });
}

async function assertKnown(database: HooksyncDatabase, name: string): Promise<void> {
  const { isKnownDestination } = await import('../../destinations/destination-admin.js');
  if (!(await isKnownDestination(database.db, name)))
    throw new CliError(`no destination named "${name}" (see hooksync destinations list)`);
}

function needConfigured(configured: readonly ConfiguredDestination[] | undefined, name?: string) {
  if (configured === undefined) {
    throw new CliError(
      'this command needs the destinations file: --destinations <file> or HOOKSYNC_DESTINATIONS',
      EXIT_USAGE,
    );
  }
  if (name === undefined) return undefined;
  const found = configured.find((destination) => destination.name === name);
  if (found === undefined) throw new CliError(`no destination named "${name}" in the destinations file`);
  return found;
}

export function registerDestinationsCommand(program: Command, ctx: CliContext): void {
  const destinations = program
    .command('destinations')
    .description('hand each stored job on to webhooks and file drops (docs/destinations.md)');

  const list = destinations
    .command('list')
    .description(
      'each destination with its state and counts: pending, delivered, failed, oldest pending age, last error',
    );
  addJsonOption(list);
  addCommonOptions(list);
  list.action(async (flags: CommonFlags & { json?: boolean }) => {
    const { listDestinationStates } = await import('../../destinations/destination-admin.js');
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
        paused: state.paused ? 'yes' : 'no',
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

  const replay = destinations
    .command('replay')
    .description(
      'queue events of a destination again (they count as pending): failed ones, or those selected',
    )
    .argument('<name>', 'the destination')
    .option('--failed', 'every failed event (with --since or --job: those of them)')
    .option('--since <iso>', 'events written at or after this instant (failed and delivered ones)')
    .option('--job <job_id...>', 'events of these jobs (failed and delivered ones)')
    .option(
      '--dry-run',
      'a HubSpot destination: read only, print what each record would become (pending events included)',
    );
  addJsonOption(replay);
  addCommonOptions(replay);
  replay.action(
    async (
      name: string,
      flags: CommonFlags & {
        failed?: boolean;
        since?: string;
        job?: string[];
        dryRun?: boolean;
        json?: boolean;
      },
    ) => {
      if (flags.failed !== true && flags.since === undefined && flags.job === undefined) {
        throw new CliError('say what to replay: --failed, --since <iso> or --job <job_id...>', EXIT_USAGE);
      }
      let since: string | undefined;
      if (flags.since !== undefined) {
        const ms = Date.parse(flags.since);
        if (Number.isNaN(ms))
          throw new CliError(`--since must be an ISO 8601 date-time (got "${flags.since}")`, EXIT_USAGE);
        since = new Date(ms).toISOString();
      }
      for (const jobId of flags.job ?? []) {
        if (!isJobId(jobId))
          throw new CliError(`--job must be a job_id (a UUID), got "${jobId}"`, EXIT_USAGE);
      }
      const selection = {
        ...(flags.failed === true ? { failed: true } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(flags.job !== undefined ? { jobIds: flags.job } : {}),
      };
      if (flags.dryRun === true) {
        const hubspot = await import('./destinations-hubspot.js');
        const { dryRunReplay } = await import('../../destinations/hubspot/dry-run-replay.js');
        const report = await withDestinations(ctx, flags, async (database, all) => {
          const destination = await hubspot.createHubSpotDestination(
            needConfigured(all, name)!,
            database,
            'replay --dry-run',
          );
          return dryRunReplay({
            database,
            destination,
            name,
            selection: { ...selection, pending: true },
            signal: hubspot.hubSpotCommandSignal(),
          });
        });
        hubspot.printDryRun(ctx, name, report, flags.json === true);
        return;
      }
      const { replayEvents } = await import('../../destinations/destination-admin.js');
      const count = await withDestinations(ctx, flags, async (database) => {
        await assertKnown(database, name);
        return replayEvents(database.db, name, selection, new Date().toISOString());
      });
      writeLine(ctx.stdout, `${count} event(s) of ${name} queued again`);
    },
  );

  const resume = destinations
    .command('resume')
    .description(
      'resume a destination paused by a 410 Gone answer (a running serve picks it up within a second)',
    )
    .argument('<name>', 'the destination');
  addCommonOptions(resume);
  resume.action(async (name: string, flags: CommonFlags) => {
    const { resumeDestination } = await import('../../destinations/outbox.js');
    await withDestinations(ctx, flags, async (database) => {
      if (!(await resumeDestination(database.db, name, new Date().toISOString()))) {
        throw new CliError(`no destination named "${name}" (see hooksync destinations list)`);
      }
    });
    writeLine(ctx.stdout, `${name} resumed`);
  });

  const test = destinations
    .command('test')
    .description(
      'check a destination: a webhook gets one signed ping event, a hubspot destination one read that proves the token and its read scopes; prints the answer',
    )
    .argument('<name>', 'the destination');
  addCommonOptions(test);
  test.action(async (name: string, flags: CommonFlags) => {
    const { pino } = await import('pino');
    // The ping runs while the database is open: a destination may keep state there (a HubSpot
    // destination's shared pace and counters).
    const result = await withDestinations(
      ctx,
      flags,
      async (database, all) => {
        const configured = needConfigured(all, name)!;
        const logger = pino({ level: 'silent' });
        const destination = configured.create({ database, logger, now: Date.now, fetch: globalThis.fetch });
        if (destination.kind !== 'outbox') {
          throw new CliError(
            `${name} is a ${configured.type} destination: it has nothing to ping (try destinations deliver)`,
          );
        }
        return destination.ping(AbortSignal.timeout(configured.dispatch!.timeoutMs));
      },
      // The README's setup pings a destination before serve has ever run.
      { create: true },
    );
    if (result.outcome === 'delivered') {
      writeLine(ctx.stdout, `${name}: ping delivered (HTTP ${result.status})`);
      return;
    }
    throw new CliError(`${name}: ping not delivered: ${result.error}`, EXIT_FAILURE);
  });

  const deliver = destinations
    .command('deliver')
    .description(
      'one pass, for cron: attempt every due event once and run every file destination once, then exit',
    );
  addCommonOptions(deliver);
  addLogLevelOption(deliver);
  deliver.action(async (flags: CommonFlags) => {
    const config = loadCliConfig(ctx.env, { logLevel: flags.logLevel, databaseUrl: flags.databaseUrl });
    const logger = createLogger(config.logLevel);
    const { createDispatcher } = await import('../../destinations/create-dispatcher.js');
    const report = await withDestinations(ctx, flags, async (database, configured) => {
      needConfigured(configured);
      const { openDispatchDatabase } = await import('../../destinations/open-dispatch-database.js');
      const dispatch = await openDispatchDatabase(config.databaseUrl, database);
      const dispatcher = createDispatcher({ database: dispatch.database, destinations: configured!, logger });
      try {
        return await dispatcher.deliverOnce();
      } finally {
        await dispatcher.stop();
        if (dispatch.owned) await dispatch.database.close();
      }
    });
    for (const line of report.destinations) writeLine(ctx.stdout, `${line.name}: ${line.result}`);
    logger.flush();
  });

  registerSetupCommand(destinations, ctx, addCommonOptions, (name, flags, body) =>
    withDestinations(ctx, flags, (database, all) => body(database, needConfigured(all, name)!), {
      create: true,
    }),
  );

  const purge = destinations
    .command('purge')
    .description(
      'delete the failed events of a destination (given up on for good; replay them instead to retry)',
    )
    .argument('<name>', 'the destination')
    .requiredOption('--failed', 'the failed events (required: the only kind purged by hand)');
  addCommonOptions(purge);
  purge.action(async (name: string, flags: CommonFlags) => {
    const { purgeFailedEvents } = await import('../../destinations/destination-admin.js');
    const count = await withDestinations(ctx, flags, async (database) => {
      await assertKnown(database, name);
      return purgeFailedEvents(database.db, name);
    });
    writeLine(ctx.stdout, `${count} failed event(s) of ${name} deleted`);
  });
}

/** `hooksync destinations deliver`: one pass for cron over every due event and every file destination. */
import type { Command } from 'commander';
import { type CliContext, writeLine } from '../../context.js';
import { createLogger } from '../../create-logger.js';
import { loadCliConfig } from '../../load-cli-config.js';
import { addLogLevelOption } from '../../options.js';
import { traceCommand } from '../../start-cli-telemetry.js';
import { addCommonOptions, type CommonFlags, needConfigured, withDestinations } from './with-destinations.js';

/** Registers `deliver` under `destinations`. */
export function registerDeliverCommand(destinations: Command, ctx: CliContext): void {
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
    const { createDispatcher } = await import('../../../destinations/create-dispatcher.js');
    const report = await traceCommand(ctx.env, 'destinations deliver', (telemetry) =>
      withDestinations(ctx, flags, async (database, configured) => {
        const all = needConfigured(configured);
        const { openDispatchDatabase } = await import('../../../destinations/open-dispatch-database.js');
        const dispatch = await openDispatchDatabase(config.databaseUrl, database);
        const dispatcher = createDispatcher({
          database: dispatch.database,
          destinations: all,
          logger,
          telemetry,
        });
        try {
          return await dispatcher.deliverOnce();
        } finally {
          await dispatcher.stop();
          if (dispatch.owned) await dispatch.database.close();
        }
      }),
    );
    for (const line of report.destinations) writeLine(ctx.stdout, `${line.name}: ${line.result}`);
    logger.flush();
  });
}

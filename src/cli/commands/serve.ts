/** `hooksync serve`: the webhook receiver. */
import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { loadDestinations } from '../../destinations/load-destinations.js';
import type { CliContext } from '../context.js';
import { createLogger } from '../create-logger.js';
import { addDatabaseOption, addLogLevelOption, addServiceOptions } from '../options.js';

interface ServeFlags {
  host?: string;
  port?: string;
  jwksUrl?: string;
  unsigned?: string;
  reconcileCron?: string;
  apiBaseUrl?: string;
  apiKey?: string;
  databaseUrl?: string;
  logLevel?: string;
  destinations?: string;
}

export function registerServeCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('serve')
    .description(
      'receive, verify and store the service callbacks on POST /webhooks (migrates the database first)',
    )
    .option('--host <host>', 'address to listen on (env HOOKSYNC_HOST, default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (env HOOKSYNC_PORT, default 8787)')
    .option(
      '--jwks-url <url>',
      'webhook key set URL (env HOOKSYNC_JWKS_URL, default base URL + /.well-known/jwks.json)',
    )
    .option(
      '--unsigned <policy>',
      'unsigned callbacks: reject or fetch (env HOOKSYNC_UNSIGNED, default reject)',
    )
    .option(
      '--reconcile-cron <expr>',
      'also run reconcile on this cron schedule, e.g. "0 3 * * *" (runs never overlap)',
    )
    .option(
      '--destinations <file>',
      'deliver stored jobs onward to the destinations in this JSON file (env HOOKSYNC_DESTINATIONS; docs/destinations.md)',
    );
  addServiceOptions(command);
  addDatabaseOption(command);
  addLogLevelOption(command);
  command.action(async (flags: ServeFlags) => {
    const config = loadConfig(ctx.env, {
      host: flags.host,
      port: flags.port,
      jwksUrl: flags.jwksUrl,
      unsigned: flags.unsigned,
      apiBaseUrl: flags.apiBaseUrl,
      apiKey: flags.apiKey,
      databaseUrl: flags.databaseUrl,
      logLevel: flags.logLevel,
      destinationsFile: flags.destinations,
    });
    const logger = createLogger(config.logLevel);
    const destinations =
      config.destinationsFile === undefined ? [] : await loadDestinations(config.destinationsFile, ctx.env);
    const { startReceiver } = await import('../../receiver/start-receiver.js');
    const running = await startReceiver({
      config,
      logger,
      ...(flags.reconcileCron !== undefined ? { reconcileCron: flags.reconcileCron } : {}),
      destinations,
    });
    logger.info({ url: running.url, webhook: `${running.url}/webhooks` }, 'hooksync serve is listening');
    const signal = await ctx.shutdown;
    logger.info({ signal }, 'draining in-flight deliveries, then closing');
    await running.close();
    logger.info('closed');
    logger.flush();
  });
}

/** `hooksync serve`: the webhook receiver. */
import type { Command } from 'commander';
import { parseDuration } from '../../config/parse-duration.js';
import { loadDestinations } from '../../destinations/load-destinations.js';
import { claimSqliteFile } from '../claim-sqlite-file.js';
import { type CliContext, CliError, EXIT_USAGE } from '../context.js';
import { createLogger } from '../create-logger.js';
import { loadCliConfig } from '../load-cli-config.js';
import { addDatabaseOption, addLogLevelOption, addServiceOptions } from '../options.js';
import { OTEL_HELP, startCliTelemetry } from '../start-cli-telemetry.js';

interface ServeFlags {
  host?: string;
  port?: string;
  jwksUrl?: string;
  unsigned?: string;
  reconcileCron?: string;
  reconcileOlderThan?: string;
  apiBaseUrl?: string;
  apiKey?: string;
  databaseUrl?: string;
  logLevel?: string;
  destinations?: string;
  watches?: string;
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
      '--reconcile-older-than <duration>',
      'with --reconcile-cron: only entries at least this old, as reconcile --older-than (default 15m)',
    )
    .option(
      '--destinations <file>',
      'deliver stored jobs onward to the destinations in this JSON file (env HOOKSYNC_DESTINATIONS; docs/destinations.md)',
    )
    .option(
      '--watches <file>',
      'run the watches in this JSON file: rows re-checked every cycle, changes handed on (env HOOKSYNC_WATCHES; docs/watches.md)',
    )
    .addHelpText(
      'after',
      '\nHOOKSYNC_ADMIN_TOKEN (at least 32 characters: openssl rand -hex 32) turns on /admin and /ui;\n' +
        'HOOKSYNC_UI_SESSION_MINUTES (default 120) is how long a /ui sign-in lasts;\n' +
        'HOOKSYNC_ALLOW_INSECURE_HTTP=<host,...> (or 1, any host) accepts http:// service and key-set URLs\n' +
        'to those hosts as well as loopback.\n' +
        OTEL_HELP,
    );
  addServiceOptions(command);
  addDatabaseOption(command);
  addLogLevelOption(command);
  command.action(async (flags: ServeFlags) => {
    const config = loadCliConfig(ctx.env, {
      host: flags.host,
      port: flags.port,
      jwksUrl: flags.jwksUrl,
      unsigned: flags.unsigned,
      apiBaseUrl: flags.apiBaseUrl,
      apiKey: flags.apiKey,
      databaseUrl: flags.databaseUrl,
      logLevel: flags.logLevel,
      destinationsFile: flags.destinations,
      watchesFile: flags.watches,
    });
    const reconcileOlderThanMs = reconcileGrace(flags);
    const logger = createLogger(config.logLevel);
    const destinations =
      config.destinationsFile === undefined ? [] : await loadDestinations(config.destinationsFile, ctx.env);
    // A CRM source reads through a destination of the destinations file (docs/watches.md). Loaded only
    // with a watches file, which loads the source types it names: serve loads no CRM it does not use.
    const watches =
      config.watchesFile === undefined
        ? []
        : await (await import('../../watches/load-watches.js')).loadWatches(config.watchesFile, {
            destinations: config.destinationsFile === undefined ? undefined : destinations,
          });
    const { isPostgresUrl } = await import('../../storage/open-database.js');
    // SQLite is one file for one receiver: a second serve on the same file refuses (docs/operations.md).
    const release =
      isPostgresUrl(config.databaseUrl) || config.databaseUrl === ':memory:'
        ? async () => {}
        : await claimSqliteFile(config.databaseUrl, { onWarning: (message) => logger.warn(message) });
    const { startReceiver } = await import('../../server/start-receiver.js');
    // OTel off (no OTEL_EXPORTER_OTLP_*ENDPOINT): undefined, and nothing of the SDK is loaded.
    const telemetry = await startCliTelemetry(ctx.env);
    let running: Awaited<ReturnType<typeof startReceiver>>;
    try {
      running = await startReceiver({
        config,
        logger,
        telemetry,
        ...(flags.reconcileCron !== undefined ? { reconcileCron: flags.reconcileCron } : {}),
        ...(reconcileOlderThanMs !== undefined ? { reconcileOlderThanMs } : {}),
        ...(ctx.storeWorkerUrl ? { storeWorkerUrl: ctx.storeWorkerUrl } : {}),
        destinations,
        watches,
      });
    } catch (error) {
      await telemetry?.shutdown();
      await release();
      throw error;
    }
    logger.info({ url: running.url, webhook: `${running.url}/webhooks` }, 'hooksync serve is listening');
    const signal = await ctx.shutdown;
    logger.info({ signal }, 'draining in-flight deliveries, then closing');
    await running.close();
    // The spans of the last deliveries are flushed (bounded: an unreachable collector does not hold the exit).
    await telemetry?.shutdown();
    await release();
    logger.info('closed');
    logger.flush();
  });
}

/** `--reconcile-older-than` in ms, read as `reconcile --older-than` reads it; only with --reconcile-cron. */
function reconcileGrace(flags: ServeFlags): number | undefined {
  if (flags.reconcileOlderThan === undefined) return undefined;
  if (flags.reconcileCron === undefined) {
    throw new CliError(
      '--reconcile-older-than needs --reconcile-cron (it sets the grace period of those runs)',
      EXIT_USAGE,
    );
  }
  try {
    return parseDuration(flags.reconcileOlderThan);
  } catch (error) {
    throw new CliError(`--reconcile-older-than: ${(error as Error).message}`, EXIT_USAGE);
  }
}

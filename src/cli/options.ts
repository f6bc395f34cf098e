/**
 * Options shared by several commands, declared once so their names and help stay the same everywhere.
 */
import { type Command, Option } from 'commander';
import { CONFIG_VARIABLES, LOG_LEVELS } from '../config/load-config.js';
import { CliError, EXIT_USAGE } from './context.js';

/** `--database-url`, overriding HOOKSYNC_DATABASE_URL. */
export function addDatabaseOption(command: Command): Command {
  return command.option(
    '--database-url <url>',
    `SQLite file path or postgres:// URL (env ${CONFIG_VARIABLES.databaseUrl}, default ./hooksync.db)`,
  );
}

/** `--log-level`, overriding HOOKSYNC_LOG_LEVEL. */
export function addLogLevelOption(command: Command): Command {
  return command.addOption(
    new Option(
      '--log-level <level>',
      `log level on stderr (env ${CONFIG_VARIABLES.logLevel}, default info)`,
    ).choices(LOG_LEVELS),
  );
}

/** `--json`: machine-readable output on stdout. */
export function addJsonOption(command: Command): Command {
  return command.option('--json', 'print JSON on stdout instead of a table');
}

/** `--api-base-url` and `--api-key`, overriding HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY. */
export function addServiceOptions(command: Command): Command {
  return command
    .option(
      '--api-base-url <url>',
      `base URL of the service or simulator (env ${CONFIG_VARIABLES.apiBaseUrl})`,
    )
    .option(
      '--api-key <key>',
      `API key of the account (env ${CONFIG_VARIABLES.apiKey}; prefer the variable)`,
    );
}

/** `--limit`: a positive integer, or undefined when the flag was not given. */
export function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new CliError(`--limit must be a positive integer (got "${value}")`, EXIT_USAGE);
  }
  return Number(value);
}

/**
 * The configuration as a command sees it: loadConfig with the command's flags winning, and a bad value named
 * as the user typed it (`--port`, not HOOKSYNC_PORT, when the value came from `--port`).
 */
import { existsSync } from 'node:fs';
import {
  CONFIG_VARIABLES,
  type ConfigOverrides,
  type HooksyncConfig,
  loadConfig,
} from '../config/load-config.js';
import { ConfigError } from '../errors.js';
import { type CliContext, CliError, EXIT_USAGE } from './context.js';

/** The flag that overrides a setting: its key in kebab case (databaseUrl → --database-url). */
export function flagOf(key: keyof typeof CONFIG_VARIABLES): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** loadConfig(env, overrides); a ConfigError about a value given as a flag names the flag instead. */
export function loadCliConfig(env: CliContext['env'], overrides: ConfigOverrides): HooksyncConfig {
  try {
    return loadConfig(env, overrides);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const [key, value] of Object.entries(overrides)) {
      const variable = CONFIG_VARIABLES[key as keyof typeof CONFIG_VARIABLES];
      if (value === undefined || variable === undefined || !error.message.includes(variable)) continue;
      throw new CliError(
        error.message.replace(variable, flagOf(key as keyof typeof CONFIG_VARIABLES)),
        EXIT_USAGE,
      );
    }
    throw error;
  }
}

/**
 * For commands that only read: a SQLite file that does not exist is a typo, not an empty database, so it
 * is refused by name and nothing is created. Postgres URLs (and `:memory:`) pass.
 */
export async function requireExistingDatabase(databaseUrl: string): Promise<void> {
  // Loaded on demand, as every command loads storage: it pulls in the database drivers.
  const { isPostgresUrl } = await import('../storage/open-database.js');
  if (isPostgresUrl(databaseUrl) || databaseUrl === ':memory:' || existsSync(databaseUrl)) return;
  throw new CliError(
    `no database at ${databaseUrl}: nothing was created (check --database-url or ${CONFIG_VARIABLES.databaseUrl}; ` +
      '`hooksync migrate` creates an empty one)',
  );
}

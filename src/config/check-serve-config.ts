/**
 * What `serve` needs of the config, checked before anything opens: an admin token long enough, a key set
 * to fetch, and the service's account wherever a part of serve reaches the finders.
 */
import { ConfigError } from '../errors.js';
import type { HooksyncConfig } from './load-config.js';
import { MIN_ADMIN_TOKEN_LENGTH } from './min-admin-token-length.js';

/** The settings serve runs on, narrowed by the checks. */
export interface ServeSettings {
  /** Where the webhook key set is fetched. */
  readonly jwksUrl: string;
  /** The service's account (reconcile's schedule, HOOKSYNC_UNSIGNED=fetch); undefined when not configured. */
  readonly account: { readonly baseUrl: string; readonly apiKey: string } | undefined;
}

/** Throws ConfigError, naming the variable or flag, when `serve` cannot run on `config`. */
export function checkServeConfig(
  config: HooksyncConfig,
  options: {
    readonly reconcileCron?: string | undefined;
    readonly watches?: readonly unknown[] | undefined;
  } = {},
): ServeSettings {
  if (config.adminToken !== undefined && config.adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `HOOKSYNC_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (make one with: openssl rand -hex 32)`,
    );
  }
  if (config.jwksUrl === undefined) {
    throw new ConfigError(
      'serve needs HOOKSYNC_JWKS_URL or HOOKSYNC_API_BASE_URL to fetch the webhook key set',
    );
  }
  const account =
    config.apiBaseUrl !== undefined && config.apiKey !== undefined
      ? { baseUrl: config.apiBaseUrl, apiKey: config.apiKey }
      : undefined;
  if (options.reconcileCron !== undefined && account === undefined) {
    throw new ConfigError(
      '--reconcile-cron needs HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY to reach the finders',
    );
  }
  if ((options.watches?.length ?? 0) > 0 && account === undefined) {
    throw new ConfigError('watches need HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY to launch their checks');
  }
  if (config.unsigned === 'fetch' && account === undefined) {
    throw new ConfigError(
      'HOOKSYNC_UNSIGNED=fetch needs HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY to reach the finders',
    );
  }
  return { jwksUrl: config.jwksUrl, account };
}

/**
 * What serve will not do without the service's account, in one line naming the variables missing;
 * undefined when the account is configured. Callbacks are received and stored either way.
 */
export function describeMissingAccount(config: HooksyncConfig): string | undefined {
  const missing = [
    ...(config.apiBaseUrl === undefined ? ['HOOKSYNC_API_BASE_URL'] : []),
    ...(config.apiKey === undefined ? ['HOOKSYNC_API_KEY'] : []),
  ];
  if (missing.length === 0) return undefined;
  return (
    `without ${missing.join(' and ')} serve receives and stores callbacks only: it cannot recover ` +
    'missing jobs (reconcile: --reconcile-cron, HOOKSYNC_UNSIGNED=fetch) nor run watches'
  );
}

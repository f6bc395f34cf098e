/**
 * loadConfig(env): the only reader of the environment. Validates every HOOKSYNC_* variable, applies the
 * flags that override them, and returns a frozen config. A bad value fails with one line naming the
 * variable and what it accepts; secrets are never echoed.
 */

import { JWKS_PATH } from '../contract/webhook-signature.js';
import { ConfigError } from '../errors.js';

export const DEFAULT_DATABASE_URL = './hooksync.db';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const DEFAULT_LOG_LEVEL = 'info';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const UNSIGNED_POLICIES = ['reject', 'fetch'] as const;
export type UnsignedPolicy = (typeof UNSIGNED_POLICIES)[number];

/** Long-lived settings of a hooksync process. */
export interface HooksyncConfig {
  /** Base URL of the service (or the simulator); undefined when no account is configured. */
  readonly apiBaseUrl: string | undefined;
  /** The account's API key: opaque, never logged. */
  readonly apiKey: string | undefined;
  /** A SQLite file path (default ./hooksync.db) or a postgres:// URL. */
  readonly databaseUrl: string;
  readonly host: string;
  readonly port: number;
  /** Where the webhook key set is fetched: HOOKSYNC_JWKS_URL, else base URL + /.well-known/jwks.json. */
  readonly jwksUrl: string | undefined;
  /** What to do with a callback that carries no signature. */
  readonly unsigned: UnsignedPolicy;
  /** Bearer token of the admin API and status page; both are off when unset. */
  readonly adminToken: string | undefined;
  readonly logLevel: LogLevel;
  /** A JSON file of destinations (docs/destinations.md); validated when a command loads it. */
  readonly destinationsFile: string | undefined;
}

/** Which variable each config field is read from. */
export const CONFIG_VARIABLES: Readonly<Record<keyof HooksyncConfig, string>> = Object.freeze({
  apiBaseUrl: 'HOOKSYNC_API_BASE_URL',
  apiKey: 'HOOKSYNC_API_KEY',
  databaseUrl: 'HOOKSYNC_DATABASE_URL',
  host: 'HOOKSYNC_HOST',
  port: 'HOOKSYNC_PORT',
  jwksUrl: 'HOOKSYNC_JWKS_URL',
  unsigned: 'HOOKSYNC_UNSIGNED',
  adminToken: 'HOOKSYNC_ADMIN_TOKEN',
  logLevel: 'HOOKSYNC_LOG_LEVEL',
  destinationsFile: 'HOOKSYNC_DESTINATIONS',
});

/** Values given on the command line; each wins over its variable. */
export type ConfigOverrides = { readonly [K in keyof HooksyncConfig]?: string | number | undefined };

type Env = Readonly<Record<string, string | undefined>>;

/** Reads and validates the configuration from `env` (pass process.env), with flags winning. */
export function loadConfig(env: Env, overrides: ConfigOverrides = {}): HooksyncConfig {
  const raw = (key: keyof HooksyncConfig): string | undefined => {
    const flag = overrides[key];
    if (flag !== undefined) return String(flag);
    const value = env[CONFIG_VARIABLES[key]];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const apiBaseUrl = optionalHttpUrl(raw('apiBaseUrl'), CONFIG_VARIABLES.apiBaseUrl);
  const jwksUrl =
    optionalHttpUrl(raw('jwksUrl'), CONFIG_VARIABLES.jwksUrl) ??
    (apiBaseUrl === undefined ? undefined : joinUrl(apiBaseUrl, JWKS_PATH));

  return Object.freeze({
    apiBaseUrl,
    apiKey: raw('apiKey'),
    databaseUrl: databaseUrl(raw('databaseUrl') ?? DEFAULT_DATABASE_URL),
    host: raw('host') ?? DEFAULT_HOST,
    port: port(raw('port')),
    jwksUrl,
    unsigned: oneOf(raw('unsigned') ?? 'reject', UNSIGNED_POLICIES, CONFIG_VARIABLES.unsigned),
    adminToken: raw('adminToken'),
    logLevel: oneOf(raw('logLevel') ?? DEFAULT_LOG_LEVEL, LOG_LEVELS, CONFIG_VARIABLES.logLevel),
    destinationsFile: raw('destinationsFile'),
  });
}

/** Appends a path to a base URL that may itself carry a path prefix. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

function optionalHttpUrl(value: string | undefined, variable: string): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${variable} must be an http(s) URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${variable} must be an http(s) URL (got "${value}")`);
  }
  return value.replace(/\/+$/, '');
}

function databaseUrl(value: string): string {
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
    } catch {
      // Never echo a Postgres URL: it may hold a password.
      throw new ConfigError(`${CONFIG_VARIABLES.databaseUrl} is not a valid postgres:// URL`);
    }
    return value;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new ConfigError(
      `${CONFIG_VARIABLES.databaseUrl} must be a SQLite file path or a postgres:// URL (got another scheme)`,
    );
  }
  return value;
}

function port(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new ConfigError(`${CONFIG_VARIABLES.port} must be an integer from 0 to 65535 (got "${value}")`);
  }
  return n;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], variable: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(`${variable} must be one of ${allowed.join(', ')} (got "${value}")`);
}

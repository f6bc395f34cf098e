/**
 * loadConfig(env): the only reader of the environment. Validates every HOOKSYNC_* variable, applies the
 * flags that override them, and returns a frozen config. A bad value fails with one line naming the
 * variable and what it accepts; secrets are never echoed.
 */

import { JWKS_PATH } from '../contract/webhook-signature.js';
import { ConfigError } from '../errors.js';
import { DEFAULT_DATABASE_SCHEMA, isDatabaseSchemaName, withDatabaseSchema } from './database-schema.js';
import {
  type InsecureHttpAllowance,
  insecureHttpProblem,
  parseInsecureHttpAllowance,
} from './insecure-http.js';
import { type ClientLimitSettings, loadClientLimits } from './load-client-limits.js';
import { loadMemoryCeiling, type MemoryCeiling } from './load-memory-ceiling.js';
import { loadReceiverLimits, type ReceiverLimitSettings } from './load-receiver-limits.js';

export { isLoopbackHost } from './insecure-http.js';

export const DEFAULT_DATABASE_URL = './hooksync.db';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const DEFAULT_LOG_LEVEL = 'info';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const UNSIGNED_POLICIES = ['reject', 'fetch'] as const;
/** Lifetime of a status page sign-in unless HOOKSYNC_UI_SESSION_MINUTES says otherwise (2 hours). */
export const DEFAULT_UI_SESSION_MINUTES = 120;
/** Longest status page sign-in accepted (one week). */
export const MAX_UI_SESSION_MINUTES = 7 * 24 * 60;
export type UnsignedPolicy = (typeof UNSIGNED_POLICIES)[number];

/** Long-lived settings of a hooksync process. */
export interface HooksyncConfig {
  /** Base URL of the service (or the simulator); undefined when no account is configured. */
  readonly apiBaseUrl: string | undefined;
  /** The account's API key: opaque, never logged. */
  readonly apiKey: string | undefined;
  /** A SQLite file path (default ./hooksync.db) or a postgres:// URL. */
  readonly databaseUrl: string;
  /** The Postgres schema of every table and view (HOOKSYNC_DATABASE_SCHEMA, default public); folded into databaseUrl. */
  readonly databaseSchema: string;
  readonly host: string;
  readonly port: number;
  /** Where the webhook key set is fetched: HOOKSYNC_JWKS_URL, else base URL + /.well-known/jwks.json. */
  readonly jwksUrl: string | undefined;
  /** What to do with a callback that carries no signature. */
  readonly unsigned: UnsignedPolicy;
  /** Bearer token of the admin API and status page; both are off when unset. */
  readonly adminToken: string | undefined;
  readonly logLevel: LogLevel;
  /** Lifetime of a status page sign-in, in minutes. */
  readonly uiSessionMinutes: number;
  /**
   * Plain `http://` service and key-set URLs to hosts other than loopback (the API key and the key set would
   * travel in clear): `false` unless HOOKSYNC_ALLOW_INSECURE_HTTP is `1` (any host, `true`) or a
   * comma-separated list of the host names allowed (e.g. `sim`, the simulator on a compose network).
   */
  readonly allowInsecureHttp: InsecureHttpAllowance;
  /** Where the service reaches this hooksync (e.g. https://hooks.example.com): `launch` sends callbacks to it + /webhooks. */
  readonly publicUrl: string | undefined;
  /** Search Contact Launcher path (not shown by the interface); undefined: the client's default. */
  readonly searchContactPath: string | undefined;
  /** Job Change Launcher path (not shown by the interface); undefined: the client's default. */
  readonly jobChangePath: string | undefined;
  /** A JSON file of destinations (docs/destinations.md); validated when a command loads it. */
  readonly destinationsFile: string | undefined;
  /** A JSON file of watches (docs/watches.md); validated whole when serve or a watches command loads it. */
  readonly watchesFile: string | undefined;
  /** The receiver's size, budget and rate limits (HOOKSYNC_BODY_BUDGET_BYTES and others; see load-receiver-limits.ts). */
  readonly receiverLimits: ReceiverLimitSettings;
  /** The service client's answer cap and answer budget (HOOKSYNC_MAX_ANSWER_BYTES, HOOKSYNC_ANSWER_BUDGET_BYTES). */
  readonly clientLimits: ClientLimitSettings;
  /** HOOKSYNC_MEMORY_MB, else the container's memory limit, else none (see load-memory-ceiling.ts). */
  readonly memoryCeiling: MemoryCeiling;
}

/** Which variable each config field is read from. */
export const CONFIG_VARIABLES: Readonly<
  Record<Exclude<keyof HooksyncConfig, 'receiverLimits' | 'clientLimits' | 'memoryCeiling'>, string>
> = Object.freeze({
  apiBaseUrl: 'HOOKSYNC_API_BASE_URL',
  apiKey: 'HOOKSYNC_API_KEY',
  databaseUrl: 'HOOKSYNC_DATABASE_URL',
  databaseSchema: 'HOOKSYNC_DATABASE_SCHEMA',
  host: 'HOOKSYNC_HOST',
  port: 'HOOKSYNC_PORT',
  jwksUrl: 'HOOKSYNC_JWKS_URL',
  unsigned: 'HOOKSYNC_UNSIGNED',
  adminToken: 'HOOKSYNC_ADMIN_TOKEN',
  logLevel: 'HOOKSYNC_LOG_LEVEL',
  uiSessionMinutes: 'HOOKSYNC_UI_SESSION_MINUTES',
  allowInsecureHttp: 'HOOKSYNC_ALLOW_INSECURE_HTTP',
  publicUrl: 'HOOKSYNC_PUBLIC_URL',
  searchContactPath: 'HOOKSYNC_SEARCH_CONTACT_PATH',
  jobChangePath: 'HOOKSYNC_JOB_CHANGE_PATH',
  destinationsFile: 'HOOKSYNC_DESTINATIONS',
  watchesFile: 'HOOKSYNC_WATCHES',
});

/** Values given on the command line; each wins over its variable. */
export type ConfigOverrides = {
  readonly [K in keyof typeof CONFIG_VARIABLES]?: string | number | boolean | undefined;
};

type Env = Readonly<Record<string, string | undefined>>;

/** Reads and validates the configuration from `env` (pass process.env), with flags winning. */
export function loadConfig(env: Env, overrides: ConfigOverrides = {}): HooksyncConfig {
  const raw = (key: keyof typeof CONFIG_VARIABLES): string | undefined => {
    const flag = overrides[key];
    if (flag !== undefined) return String(flag);
    const value = env[CONFIG_VARIABLES[key]];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const allowInsecureHttp = parseInsecureHttpAllowance(raw('allowInsecureHttp'));
  const apiBaseUrl = optionalHttpUrl(raw('apiBaseUrl'), CONFIG_VARIABLES.apiBaseUrl, allowInsecureHttp);
  const jwksUrl =
    optionalHttpUrl(raw('jwksUrl'), CONFIG_VARIABLES.jwksUrl, allowInsecureHttp) ??
    (apiBaseUrl === undefined ? undefined : joinUrl(apiBaseUrl, JWKS_PATH));

  const databaseSchema = schemaName(raw('databaseSchema'));
  return Object.freeze({
    apiBaseUrl,
    apiKey: raw('apiKey'),
    databaseUrl: withDatabaseSchema(databaseUrl(raw('databaseUrl') ?? DEFAULT_DATABASE_URL), databaseSchema),
    databaseSchema,
    host: raw('host') ?? DEFAULT_HOST,
    port: port(raw('port')),
    jwksUrl,
    unsigned: oneOf(raw('unsigned') ?? 'reject', UNSIGNED_POLICIES, CONFIG_VARIABLES.unsigned),
    adminToken: raw('adminToken'),
    logLevel: oneOf(raw('logLevel') ?? DEFAULT_LOG_LEVEL, LOG_LEVELS, CONFIG_VARIABLES.logLevel),
    uiSessionMinutes: minutes(raw('uiSessionMinutes')),
    allowInsecureHttp,
    receiverLimits: loadReceiverLimits(env),
    clientLimits: loadClientLimits(env),
    memoryCeiling: loadMemoryCeiling(env),
    // No secret travels to the public URL (it is only named in webhook_url), so plain http is the user's call.
    publicUrl: optionalHttpUrl(raw('publicUrl'), CONFIG_VARIABLES.publicUrl, true),
    searchContactPath: optionalPath(raw('searchContactPath'), CONFIG_VARIABLES.searchContactPath),
    jobChangePath: optionalPath(raw('jobChangePath'), CONFIG_VARIABLES.jobChangePath),
    destinationsFile: raw('destinationsFile'),
    watchesFile: raw('watchesFile'),
  });
}

/** Appends a path to a base URL that may itself carry a path prefix. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

/** `value` as it may appear in a message: anything between `//` and `@` (a user name, a password) hidden. */
function shown(value: string): string {
  return value.replace(/\/\/[^/?#]*@/, '//***@');
}

function optionalHttpUrl(
  value: string | undefined,
  variable: string,
  allowInsecure: InsecureHttpAllowance,
): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${variable} must be an http(s) URL (got "${shown(value)}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${variable} must be an http(s) URL (got "${shown(value)}")`);
  }
  if (url.username !== '' || url.password !== '') {
    // fetch refuses such URLs anyway, and the API key has its own variable.
    throw new ConfigError(`${variable} must not hold a user name or password (got "${shown(value)}")`);
  }
  const problem = insecureHttpProblem(url, allowInsecure);
  if (problem !== undefined) throw new ConfigError(`${variable} ${problem}`);
  return value.replace(/\/+$/, '');
}

function minutes(value: string | undefined): number {
  if (value === undefined) return DEFAULT_UI_SESSION_MINUTES;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_UI_SESSION_MINUTES) {
    throw new ConfigError(
      `${CONFIG_VARIABLES.uiSessionMinutes} must be an integer from 1 to ${MAX_UI_SESSION_MINUTES} (got "${value}")`,
    );
  }
  return n;
}

function optionalPath(value: string | undefined, variable: string): string | undefined {
  if (value === undefined) return undefined;
  if (!value.startsWith('/') || /\s/.test(value)) {
    throw new ConfigError(`${variable} must be a path starting with "/" (got "${value}")`);
  }
  return value;
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

function schemaName(value: string | undefined): string {
  if (value === undefined) return DEFAULT_DATABASE_SCHEMA;
  if (!isDatabaseSchemaName(value)) {
    throw new ConfigError(
      `${CONFIG_VARIABLES.databaseSchema} must be a lower-case name of letters, digits and _ (at most 63, not starting with a digit) (got "${value.slice(0, 80)}")`,
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

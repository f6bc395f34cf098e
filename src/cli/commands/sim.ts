/**
 * `hooksync sim`: the local stand-in for the service. Prints its URL, master key and key-set URL, one
 * `NAME=value` line each on stdout (the variables the rest of hooksync reads), then serves until SIGINT or
 * SIGTERM. With --detach it serves in the background instead (detach-simulator.ts).
 */
import type { Command } from 'commander';
import { ValidationError } from '../../errors.js';
import { parseRateSpec, parseSubKeySpec, type SubKeySpec } from '../../simulator/api-key-registry.js';
import type { Simulator } from '../../simulator/create-simulator.js';
import type { SimulatorOptions } from '../../simulator/simulator-options.js';
import { type CliContext, CliError, EXIT_USAGE, writeLine } from '../context.js';
import { createLogger } from '../create-logger.js';
import { loadCliConfig } from '../load-cli-config.js';
import { addLogLevelOption } from '../options.js';

/** Port of `hooksync sim` when --port is not given. */
export const DEFAULT_SIM_PORT = 8788;
/** Variable giving the webhook retry backoff base in ms, when --retry-base-ms is not given. */
export const SIM_RETRY_BASE_MS_VARIABLE = 'HOOKSYNC_SIM_RETRY_BASE_MS';

/** The parsed flags of `hooksync sim` (commander camel-cases them). */
export interface SimFlags {
  host?: string;
  port?: string;
  apiKey?: string;
  subKey: string[];
  seed?: string;
  rate?: string;
  balance?: string;
  db?: string;
  asyncMs?: string;
  retryBaseMs?: string;
  deliveryTimeoutMs?: string;
  reuseToken?: boolean;
  keys?: string;
  rotateEvery?: string;
  rotationGraceMs?: string;
  unsigned?: boolean;
  duplicateRate?: string;
  dropRate?: string;
  tamperRate?: string;
  unsignedRate?: string;
  errorRate?: string;
  delayMs?: string;
  reorder?: boolean;
  reorderWindowMs?: string;
  companyCount?: string;
  peoplePerCompany?: string;
  publicUrl?: string;
  detach?: boolean;
  logLevel?: string;
}

function usage(message: string): CliError {
  return new CliError(message, EXIT_USAGE);
}

function integer(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < min) {
    throw usage(`${flag} must be an integer >= ${min}, got "${value}"`);
  }
  return n;
}

function number(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw usage(`${flag} must be a number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

function withDefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The simulator options the flags (and HOOKSYNC_SIM_RETRY_BASE_MS) ask for. */
export function simulatorOptionsFromFlags(flags: SimFlags, env: CliContext['env']): SimulatorOptions {
  let subKeys: SubKeySpec[];
  let rate: SimulatorOptions['rate'];
  try {
    subKeys = flags.subKey.map(parseSubKeySpec);
    rate = flags.rate === undefined ? undefined : parseRateSpec(flags.rate);
  } catch (error) {
    throw usage((error as Error).message);
  }
  const retryBase = flags.retryBaseMs ?? env[SIM_RETRY_BASE_MS_VARIABLE];
  const retryFlag = flags.retryBaseMs === undefined ? SIM_RETRY_BASE_MS_VARIABLE : '--retry-base-ms';
  return withDefined<SimulatorOptions>({
    host: flags.host,
    port: integer('--port', flags.port, 0) ?? DEFAULT_SIM_PORT,
    apiKey: flags.apiKey,
    subKeys,
    seed: flags.seed,
    rate,
    balanceUsd: number('--balance', flags.balance, 0, Number.MAX_SAFE_INTEGER / 1e6),
    dbFile: flags.db,
    asyncMs: integer('--async-ms', flags.asyncMs, 0),
    retryBaseMs: integer(retryFlag, retryBase === '' ? undefined : retryBase, 0),
    deliveryTimeoutMs: integer('--delivery-timeout-ms', flags.deliveryTimeoutMs, 1),
    reuseToken: flags.reuseToken,
    keysFile: flags.keys,
    rotateEvery: integer('--rotate-every', flags.rotateEvery, 1),
    rotationGraceMs: integer('--rotation-grace-ms', flags.rotationGraceMs, 0),
    unsigned: flags.unsigned,
    faults: withDefined({
      duplicateRate: number('--duplicate-rate', flags.duplicateRate, 0, 1),
      dropRate: number('--drop-rate', flags.dropRate, 0, 1),
      tamperRate: number('--tamper-rate', flags.tamperRate, 0, 1),
      unsignedRate: number('--unsigned-rate', flags.unsignedRate, 0, 1),
    }),
    errorRate: number('--error-rate', flags.errorRate, 0, 1),
    delayMs: integer('--delay-ms', flags.delayMs, 0),
    reorder: flags.reorder,
    reorderWindowMs: integer('--reorder-window-ms', flags.reorderWindowMs, 1),
    companyCount: integer('--company-count', flags.companyCount, 1),
    peoplePerCompany: integer('--people-per-company', flags.peoplePerCompany, 0),
  });
}

/** The base URL to print: --public-url when given (an http(s) URL, no trailing slash), else where it listens. */
export function publicBaseUrl(flag: string | undefined, listening: string): string {
  if (flag === undefined) return listening;
  let url: URL;
  try {
    url = new URL(flag);
  } catch {
    throw usage(`--public-url must be an http:// or https:// URL, got "${flag}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw usage(`--public-url must be an http:// or https:// URL without query or fragment, got "${flag}"`);
  }
  return url.href.replace(/\/+$/, '');
}

async function runSim(flags: SimFlags, ctx: CliContext): Promise<void> {
  const options = simulatorOptionsFromFlags(flags, ctx.env);
  publicBaseUrl(flags.publicUrl, 'http://127.0.0.1');
  const { logLevel } = loadCliConfig(ctx.env, { logLevel: flags.logLevel });
  const logger = createLogger(logLevel);
  const { createSimulator } = await import('../../simulator/create-simulator.js');
  let simulator: Simulator;
  try {
    simulator = await createSimulator({ ...options, logger });
  } catch (error) {
    if (error instanceof ValidationError) throw usage(`${error.code}: ${error.message}`);
    if (error instanceof TypeError) throw usage(error.message);
    throw error;
  }
  try {
    const baseUrl = publicBaseUrl(flags.publicUrl, simulator.url);
    writeLine(ctx.stdout, `HOOKSYNC_API_BASE_URL=${baseUrl}`);
    writeLine(ctx.stdout, `HOOKSYNC_API_KEY=${simulator.apiKey}`);
    writeLine(ctx.stdout, `HOOKSYNC_JWKS_URL=${baseUrl}${new URL(simulator.jwksUrl).pathname}`);
    const signal = await ctx.shutdown;
    logger.info({ signal }, 'simulator stopping');
  } finally {
    await simulator.close();
    logger.flush();
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Registers `hooksync sim`. */
export function registerSimCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('sim')
    .description('run a local simulator of the service, with signed webhooks and fault injection')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', `port to listen on, 0 for any free one (default ${DEFAULT_SIM_PORT})`)
    .option(
      '--public-url <url>',
      'base URL that others reach it by, printed instead of the listening address (e.g. in compose)',
    )
    .option('--api-key <key>', 'master API key (generated and printed when omitted)')
    .option('--sub-key <key[:per/seconds]>', 'add a sub-key, with its own rate (repeatable)', collect, [])
    .option('--seed <seed>', 'seed of the synthetic data and of every fault decision (default hooksync)')
    .option('--rate <per/seconds>', 'account rate on Search and Job Change (default 50/60)')
    .option('--balance <usd>', 'starting balance in USD (default 1000)')
    .option('--db <file>', 'keep jobs across restarts in this JSON-lines file')
    .option(
      '--async-ms <ms>',
      'Search Contact and Job Change launches answer RUNNING and finish after this delay',
    )
    .option(
      '--retry-base-ms <ms>',
      `webhook retry backoff base (env ${SIM_RETRY_BASE_MS_VARIABLE}, default 1000)`,
    )
    .option('--delivery-timeout-ms <ms>', 'timeout of one webhook attempt (default 10000)')
    .option('--reuse-token', 'webhook retries reuse the first token (same jti and iat)')
    .option('--keys <file>', 'JSON file of private Ed25519 JWKs to sign with (written if absent)')
    .option('--rotate-every <n>', 'rotate the signing key after every n signed deliveries')
    .option('--rotation-grace-ms <ms>', 'how long a retired key stays in the key set (default 900000)')
    .option('--unsigned', 'send every callback without X-Webhook-Signature')
    .option('--duplicate-rate <rate>', 'share of callbacks delivered twice (0 to 1)')
    .option('--drop-rate <rate>', 'share of callbacks never delivered (0 to 1)')
    .option('--tamper-rate <rate>', 'share of callbacks whose body is changed after signing (0 to 1)')
    .option('--unsigned-rate <rate>', 'share of callbacks sent without a signature (0 to 1)')
    .option('--error-rate <rate>', 'share of finder requests answered 500 (0 to 1)')
    .option('--delay-ms <ms>', 'delay before each callback')
    .option('--reorder', 'deliver callbacks in a shuffled order within a short window')
    .option('--reorder-window-ms <ms>', 'length of a reorder window (default 200)')
    .option('--company-count <n>', 'number of synthetic companies')
    .option('--people-per-company <n>', 'number of synthetic people per company');
  command.option(
    '--detach',
    `start in the background; print export lines (and HOOKSYNC_SIM_PID) once it listens, for eval "$(hooksync sim --detach)"`,
  );
  addLogLevelOption(command);
  command.action(async (flags: SimFlags, self: Command) => {
    if (flags.detach !== true) return runSim(flags, ctx);
    // Refuse bad flags here, in the foreground, before anything starts in the background.
    simulatorOptionsFromFlags(flags, ctx.env);
    publicBaseUrl(flags.publicUrl, 'http://127.0.0.1');
    const { detachSimulator, foregroundArgs } = await import('../detach-simulator.js');
    await detachSimulator(['sim', ...foregroundArgs(self, ['--detach'])], ctx);
  });
}

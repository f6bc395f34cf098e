/**
 * The knobs of {@link createSimulator}, their defaults, and their validation (a caller's misuse is a
 * TypeError; the CLI turns flags into these options and its errors into a usage error).
 */
import type { Logger } from 'pino';
import { assertRateLimit, type RateLimit } from '../contract/rate-limit.js';
import type { SubKeySpec } from './api-key-registry.js';
import { assertFaultRates, type FaultRates } from './delivery-faults.js';

/** Loopback only unless told otherwise: the simulator is a development tool. */
export const DEFAULT_SIM_HOST = '127.0.0.1';
/** Seed of the data and the fault draws when none is given. */
export const DEFAULT_SIM_SEED = 'hooksync';
/** Starting balance, in USD. */
export const DEFAULT_BALANCE_USD = 1000;
/** Webhook retry backoff base, in ms (retry n waits base * 2^(n-1)). */
export const DEFAULT_RETRY_BASE_MS = 1000;
/** Timeout of one webhook attempt, in ms. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** A retired signing key stays in the key set this long: the 15-minute lifetime of a token it signed. */
export const DEFAULT_ROTATION_GRACE_MS = 15 * 60 * 1000;
/** Length of a reorder window, in ms. */
export const DEFAULT_REORDER_WINDOW_MS = 200;

/** Options of {@link createSimulator}; every one has a default. */
export interface SimulatorOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** Master API key (default: a random UUID). Keys are opaque strings. */
  apiKey?: string;
  /** Sub-keys, each with its own rate (default: the master's); a rate above the master's is refused. */
  subKeys?: readonly SubKeySpec[];
  /** Seed of the synthetic data and of every fault decision (default "hooksync"). */
  seed?: string | number;
  /** Account rate on the Search and Job Change endpoints, also the master key's (default 50 per 60 s). */
  rate?: RateLimit;
  /** Starting balance in USD (default 1000). */
  balanceUsd?: number;
  /** JSON-lines file keeping the jobs across restarts (default: memory only). */
  dbFile?: string;
  /** Search Contact and Job Change launches answer RUNNING and finish this many ms later (default 0: synchronous). */
  asyncMs?: number;
  /** Webhook retry backoff base in ms: retry n waits base * 2^(n-1) (default 1000). */
  retryBaseMs?: number;
  /** Timeout of one delivery attempt in ms (default 10000). */
  deliveryTimeoutMs?: number;
  /** Retries reuse the first token instead of a fresh jti and iat (default false). */
  reuseToken?: boolean;
  /** JSON file of private JWKs to sign with; written when absent and on rotation (default: keys in memory). */
  keysFile?: string;
  /** Rotate the signing key after every N signed deliveries (default: only on demand). */
  rotateEvery?: number;
  /** How long a retired key stays in the key set, in ms (default 15 minutes). */
  rotationGraceMs?: number;
  /** Send every callback without X-Webhook-Signature (default false). */
  unsigned?: boolean;
  /** Delivery faults, each a rate from 0 to 1 (default none). */
  faults?: FaultRates;
  /** Delay before each delivery's first attempt, in ms (default 0). */
  delayMs?: number;
  /** Deliver in a shuffled order within a window of `reorderWindowMs` (default false). */
  reorder?: boolean;
  /** Length of a reorder window in ms (default 200). */
  reorderWindowMs?: number;
  /** Share of finder requests answered 500 INTERNAL_UNCLASSIFIED_ERROR, 0 to 1 (default 0). */
  errorRate?: number;
  /** Size of the synthetic world (defaults: the data module's). */
  companyCount?: number;
  peoplePerCompany?: number;
  /** Clock in ms since the epoch, for dates, token iat/exp, rate windows and key grace (default: real time). */
  now?: () => number;
  /** fetch used to deliver webhooks (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Logger (default: silent). Never given keys or tokens. */
  logger?: Logger;
}

function assertNonNegativeInteger(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new TypeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
}

function assertPositiveInteger(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
    throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  }
}

/** Throws TypeError naming the first option out of range. */
export function assertSimulatorOptions(options: SimulatorOptions): void {
  if (
    options.port !== undefined &&
    !(Number.isInteger(options.port) && options.port >= 0 && options.port <= 65535)
  ) {
    throw new TypeError(`port must be an integer from 0 to 65535, got ${String(options.port)}`);
  }
  if (options.rate !== undefined) assertRateLimit(options.rate);
  if (options.balanceUsd !== undefined && !(Number.isFinite(options.balanceUsd) && options.balanceUsd >= 0)) {
    throw new TypeError(`balanceUsd must be a number >= 0, got ${String(options.balanceUsd)}`);
  }
  assertNonNegativeInteger('asyncMs', options.asyncMs);
  assertNonNegativeInteger('retryBaseMs', options.retryBaseMs);
  assertPositiveInteger('deliveryTimeoutMs', options.deliveryTimeoutMs);
  assertPositiveInteger('rotateEvery', options.rotateEvery);
  assertNonNegativeInteger('rotationGraceMs', options.rotationGraceMs);
  assertNonNegativeInteger('delayMs', options.delayMs);
  assertPositiveInteger('reorderWindowMs', options.reorderWindowMs);
  if (options.errorRate !== undefined && !(options.errorRate >= 0 && options.errorRate <= 1)) {
    throw new TypeError(`errorRate must be a number from 0 to 1, got ${String(options.errorRate)}`);
  }
  assertFaultRates(options.faults ?? {});
}

/**
 * The receiver's limits as the environment sets them (issue 15 and 19): each variable is optional, a
 * non-negative integer, and falls back to the default documented in docs/operations.md.
 */
import { ConfigError } from '../errors.js';

/** Which variable sets each limit. */
export const RECEIVER_LIMIT_VARIABLES = Object.freeze({
  bodyLimitBytes: 'HOOKSYNC_BODY_LIMIT_BYTES',
  bodyBudgetBytes: 'HOOKSYNC_BODY_BUDGET_BYTES',
  bodyBudgetWaitMs: 'HOOKSYNC_BODY_BUDGET_WAIT_MS',
  maxUnverified: 'HOOKSYNC_MAX_UNVERIFIED',
  quarantineBudgetBytes: 'HOOKSYNC_QUARANTINE_BUDGET_BYTES',
  quarantineRatePerMinute: 'HOOKSYNC_QUARANTINE_RATE_PER_MINUTE',
  unsignedFetchUnknownPerMinute: 'HOOKSYNC_UNSIGNED_FETCH_PER_MINUTE',
} as const);

/** Limits that must be at least 1 (a zero would refuse every delivery). */
const POSITIVE = new Set<string>(['bodyLimitBytes', 'bodyBudgetBytes', 'maxUnverified']);

/** Limits set in the environment; an absent variable leaves its limit at the default. */
export type ReceiverLimitSettings = { readonly [K in keyof typeof RECEIVER_LIMIT_VARIABLES]?: number };

/** Reads the limit variables from `env`; a bad value fails with one line naming the variable. */
export function loadReceiverLimits(env: Readonly<Record<string, string | undefined>>): ReceiverLimitSettings {
  const limits: { -readonly [K in keyof ReceiverLimitSettings]: number } = {};
  for (const [name, variable] of Object.entries(RECEIVER_LIMIT_VARIABLES) as Array<
    [keyof ReceiverLimitSettings, string]
  >) {
    const value = env[variable]?.trim();
    if (value === undefined || value === '') continue;
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw new ConfigError(`${variable} must be a non-negative integer (got "${value.slice(0, 40)}")`);
    }
    if (POSITIVE.has(name) && Number(value) === 0) {
      throw new ConfigError(`${variable} must be a positive integer (got "0")`);
    }
    limits[name] = Number(value);
  }
  return Object.freeze(limits);
}

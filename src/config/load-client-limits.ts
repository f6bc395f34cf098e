/**
 * The service client's memory bounds as the environment sets them (issue 28 part 3): the largest answer
 * read, and the answer bytes in flight across concurrent calls. Each variable is optional, a positive
 * integer; an absent one leaves the client's default (4 MiB and 16 MiB, docs/operations.md).
 */
import { ConfigError } from '../errors.js';

/** Which variable sets each bound. */
export const CLIENT_LIMIT_VARIABLES = Object.freeze({
  maxResponseBytes: 'HOOKSYNC_MAX_ANSWER_BYTES',
  answerBudgetBytes: 'HOOKSYNC_ANSWER_BUDGET_BYTES',
} as const);

/** Bounds set in the environment, named as createClient's options. */
export type ClientLimitSettings = { readonly [K in keyof typeof CLIENT_LIMIT_VARIABLES]?: number };

/** Reads the bounds from `env`; a bad value fails with one line naming the variable. */
export function loadClientLimits(env: Readonly<Record<string, string | undefined>>): ClientLimitSettings {
  const limits: { -readonly [K in keyof ClientLimitSettings]: number } = {};
  for (const [name, variable] of Object.entries(CLIENT_LIMIT_VARIABLES) as Array<
    [keyof ClientLimitSettings, string]
  >) {
    const value = env[variable]?.trim();
    if (value === undefined || value === '') continue;
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) === 0) {
      throw new ConfigError(`${variable} must be a positive integer (got "${value.slice(0, 40)}")`);
    }
    limits[name] = Number(value);
  }
  const { maxResponseBytes, answerBudgetBytes } = limits;
  if (
    maxResponseBytes !== undefined &&
    answerBudgetBytes !== undefined &&
    answerBudgetBytes < maxResponseBytes
  ) {
    throw new ConfigError(
      `${CLIENT_LIMIT_VARIABLES.answerBudgetBytes} (${answerBudgetBytes}) must be at least ${CLIENT_LIMIT_VARIABLES.maxResponseBytes} (${maxResponseBytes})`,
    );
  }
  return Object.freeze(limits);
}

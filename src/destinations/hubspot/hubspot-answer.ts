/**
 * What a HubSpot answer that is not a success means for the destination: retry (5xx, network, 423 after
 * ≥ 2 s), pause for a while (429: TEN_SECONDLY_ROLLING ≥ 10 s, SECONDLY 1 s, DAILY until the window resets),
 * pause until resumed (401 naming the token, 403 naming the missing scopes), or fail the records at fault
 * (400, 409: never retried unchanged). Which of those are tried again within the call: the CRMs' default
 * retry policy (`crm/crm-retry.ts`).
 */

import { z } from 'zod';
import { parseAnswer } from '../../contract/answer-shape.js';
import { boundOutsideText } from '../../contract/outside-text.js';
import type { CrmTrouble } from '../../errors.js';

/** The daily window resets at midnight in the account's time zone, which the API does not tell: probe hourly. */
export const DAILY_PROBE_MS = 3_600_000;
/** The shortest waits HubSpot asks for: the rolling 10-second window, search's second, a lock. */
export const TEN_SECONDLY_PAUSE_MS = 10_000;
export const SECONDLY_PAUSE_MS = 1_000;
export const LOCKED_PAUSE_MS = 2_000;

/** HubSpot's error envelope; every field optional (docs: error handling). */
export interface HubSpotErrorBody {
  readonly status?: string;
  readonly message?: string;
  readonly category?: string;
  readonly policyName?: string;
  readonly errors?: ReadonlyArray<{
    readonly message?: string;
    readonly context?: Readonly<Record<string, readonly string[] | undefined>>;
  }>;
  readonly context?: Readonly<Record<string, readonly string[] | undefined>>;
}

const optionalText = z.string().optional().catch(undefined);
const contextSchema = z
  .record(
    z.string(),
    z.array(z.unknown()).transform((items) => items.filter((item) => typeof item === 'string')),
  )
  .optional()
  .catch(undefined);
const errorBodySchema = z.object({
  status: optionalText,
  message: optionalText,
  category: optionalText,
  policyName: optionalText,
  errors: z
    .array(z.object({ message: optionalText, context: contextSchema }).catch({}))
    .optional()
    .catch(undefined),
  context: contextSchema,
});

/** Reads an error body, or undefined when it is not HubSpot's JSON; fields of the wrong type are dropped. */
export function parseErrorBody(text: string): HubSpotErrorBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = parseAnswer(errorBodySchema, value);
  return parsed.ok ? (parsed.data as HubSpotErrorBody) : undefined;
}

/** A policy name HubSpot could send (`TEN_SECONDLY_ROLLING`); any other text is not one. */
const POLICY_NAME = /^[A-Z_]{1,40}$/;

/** The 429's `policyName` when it looks like one, else `UNKNOWN`: a hostile answer names no counter or log field. */
export function policyNameOf(body: HubSpotErrorBody | undefined): string {
  const name = body?.policyName;
  return name !== undefined && POLICY_NAME.test(name) ? name : 'UNKNOWN';
}

/** HubSpot's message, short enough for a log line and `destinations list`. */
export function errorMessage(status: number, body: HubSpotErrorBody | undefined, text: string): string {
  const message = body?.message ?? (text.trim() === '' ? undefined : text.trim());
  return message === undefined ? `HTTP ${status}` : `HTTP ${status}: ${boundOutsideText(message, 300)}`;
}

/** Classifies a non-2xx answer; `retryAfterMs` is the Retry-After header read, when given. */
export function classifyTrouble(options: {
  readonly status: number;
  readonly text: string;
  readonly retryAfterMs: number | undefined;
  readonly tokenEnv: string | undefined;
}): CrmTrouble {
  const { status, text, retryAfterMs } = options;
  const body = parseErrorBody(text);
  const error = errorMessage(status, body, text);
  if (status === 429) {
    const policy = policyNameOf(body);
    const least =
      policy === 'DAILY' ? DAILY_PROBE_MS : policy === 'SECONDLY' ? SECONDLY_PAUSE_MS : TEN_SECONDLY_PAUSE_MS;
    return { kind: 'wait', policy, error, waitMs: Math.max(least, retryAfterMs ?? 0) };
  }
  if (status === 423)
    return { kind: 'retry', error, retryAfterMs: Math.max(LOCKED_PAUSE_MS, retryAfterMs ?? 0) };
  if (status === 401) {
    const where = options.tokenEnv === undefined ? 'the token' : `the token in ${options.tokenEnv}`;
    return { kind: 'pause', error: `HubSpot refused ${where} (401): replace it. ${error}` };
  }
  if (status === 403) {
    const scopes = (body?.errors ?? []).flatMap((item) => item.context?.requiredGranularScopes ?? []);
    const missing =
      scopes.length > 0 ? `missing scope ${[...new Set(scopes)].join(', ')}` : 'a scope is missing';
    return {
      kind: 'pause',
      error: `HubSpot refused the private app or service key (403, ${missing}): grant it. ${error}`,
    };
  }
  if (status >= 500 || status === 408)
    return { kind: 'retry', error, ...(retryAfterMs ? { retryAfterMs } : {}) };
  return { kind: 'fail', error };
}

/** The daily calls left, from `X-HubSpot-RateLimit-Daily-Remaining`, when the answer carries it. */
export function dailyRemaining(headers: Headers): number | undefined {
  const value = headers.get('x-hubspot-ratelimit-daily-remaining');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

/**
 * What a Pipedrive answer that is not a success means for the destination (shared/docs/pipedrive-api.md §5,
 * §6): a burst 429 defers the destination for its 2 s window (never retried in the call: a client that keeps
 * sending through 429s gets Cloudflare's block); a daily-budget 429 defers it until the reset its
 * retry-after counts down to; Cloudflare's 403 HTML page pauses it with a message; 401 pauses naming the
 * variable; 402 pauses (the account is not open); 5xx, 408 and network errors retry; 400, 404 and a JSON
 * 403 (a plan limit, a contact-sync field) fail the record at fault. And the daily budget the answers'
 * `x-daily-ratelimit-token-*` headers report.
 */
import { boundOutsideText } from '../../contract/outside-text.js';
import type { CrmTrouble } from '../../errors.js';
import { type CrmRetryPolicy, DEFAULT_CRM_RETRY_POLICY } from '../crm/crm-retry.js';

/** Pipedrive's burst window (§5): a burst 429 waits at least this long. */
export const BURST_WINDOW_MS = 2_000;
/** A daily 429 without a retry-after is probed again after this long. */
export const DAILY_PROBE_MS = 3_600_000;

/** Tokens a call costs (v2; §1): a GET by id, a list, a create or update, a search, v1 field lists and creations. */
export const TOKEN_COST = { get: 1, list: 10, write: 5, search: 20, fields: 20, createField: 10 } as const;

/** The tokens one answered call to `path` (query included) costs. */
export function tokenCost(method: string, path: string): number {
  const route = path.split('?')[0]!;
  if (route.endsWith('Fields')) return method === 'GET' ? TOKEN_COST.fields : TOKEN_COST.createField;
  if (route.endsWith('/search')) return TOKEN_COST.search;
  if (method !== 'GET') return TOKEN_COST.write;
  return /\/\d+$/.test(route) ? TOKEN_COST.get : TOKEN_COST.list;
}

/** Pipedrive's error message, short enough for a log line. */
export function errorMessage(status: number, text: string): string {
  let message: string | undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown; error_info?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    message = undefined;
  }
  return message === undefined ? `HTTP ${status}` : `HTTP ${status}: ${boundOutsideText(message, 300)}`;
}

/** Classifies a non-2xx answer. */
export function classifyTrouble(options: {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
  readonly retryAfterMs: number | undefined;
  readonly tokenEnv: string | undefined;
}): CrmTrouble {
  const { status, text, headers, retryAfterMs } = options;
  const error = errorMessage(status, text);
  if (status === 429) {
    const daily =
      /daily/i.test(text) ||
      headers.get('x-daily-ratelimit-token-remaining')?.trim() === '0' ||
      (retryAfterMs ?? 0) > BURST_WINDOW_MS;
    if (daily) return { kind: 'wait', policy: 'DAILY', error, waitMs: retryAfterMs ?? DAILY_PROBE_MS };
    return { kind: 'wait', policy: 'BURST', error, waitMs: Math.max(BURST_WINDOW_MS, retryAfterMs ?? 0) };
  }
  if (status === 403 && /^\s*</.test(text))
    return {
      kind: 'pause',
      error:
        'Pipedrive blocked the calls (403, a Cloudflare HTML page, sent to clients that keep calling through 429s): resume the destination once the block has lifted',
    };
  if (status === 401) {
    const where = options.tokenEnv === undefined ? 'the API token' : `the API token in ${options.tokenEnv}`;
    return { kind: 'pause', error: `Pipedrive refused ${where} (401): replace it. ${error}` };
  }
  if (status === 402)
    return { kind: 'pause', error: `Pipedrive: the company account is not open (402). ${error}` };
  if (status >= 500 || status === 408)
    return { kind: 'retry', error, ...(retryAfterMs ? { retryAfterMs } : {}) };
  return { kind: 'fail', error };
}

/** The daily budget an answer reports, when its headers carry it (they can be missing, §5). */
export function dailyBudget(headers: Headers): { limit: number; remaining: number } | undefined {
  const limit = headers.get('x-daily-ratelimit-token-limit');
  const remaining = headers.get('x-daily-ratelimit-token-remaining');
  if (limit === null || remaining === null || !/^\d+$/.test(limit.trim()) || !/^\d+$/.test(remaining.trim()))
    return undefined;
  return { limit: Number(limit), remaining: Number(remaining) };
}

/**
 * The default CRM policy (`crm/crm-retry.ts`: 5xx, 408 and dropped connections, 200 ms × attempt apart or
 * the server's wait; Pipedrive's burst window of 2 s is never waited out in the call), for GET and PATCH only.
 * A POST (a record or field create: Pipedrive has no upsert) is sent once: one that Pipedrive made but
 * answered with an error is not made again blindly; the lane's next attempt goes through the key → id map
 * and search first (docs/destinations.md, Pipedrive).
 */
export const PIPEDRIVE_RETRY_POLICY: CrmRetryPolicy = { ...DEFAULT_CRM_RETRY_POLICY, sendOnce: ['POST'] };

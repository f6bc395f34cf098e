/**
 * What Slack's answers mean. The Web API answers HTTP 200 with `"ok": false` and a reason for nearly
 * every error: a channel or message problem (`channel_not_found`, `not_in_channel`, `is_archived`,
 * `msg_too_long`, `no_text`, ...) fails the event with Slack's reason (replay it once fixed); a refused
 * token (`invalid_auth`, `token_revoked`, `account_inactive`, ...) pauses the destination, naming the
 * variable, until `destinations resume`; `internal_error` and its kind, 5xx and network trouble are
 * retried; 429 (with Retry-After, one message a second per channel) is waited out, not an attempt lost.
 * Incoming webhooks answer plain text (`ok`, `invalid_payload`, `channel_is_archived`, `no_text`, ...)
 * with real statuses; the same rules apply to their reasons.
 */
import { z } from 'zod';
import { parseRetryAfterSeconds } from '../../client/retry-after.js';
import { parseAnswer } from '../../contract/answer-shape.js';
import { boundOutsideText } from '../../contract/outside-text.js';
import type { AttemptResult } from '../destination-type.js';

/** The wait after a 429 that names none: Slack's pace is one message a second per channel. */
export const DEFAULT_SLACK_WAIT_MS = 1_000;
/** The longest Retry-After waited out in the lane (longer ones still pause the event that long). */
export const MAX_SLACK_WAIT_MS = 15 * 60_000;

/** Reasons that mean the credentials are refused: the destination pauses. */
const AUTH_REASONS = new Set([
  'not_authed',
  'invalid_auth',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'no_permission',
  'missing_scope',
  'ekm_access_denied',
  'invalid_token',
  'no_service',
  'no_service_id',
  'no_team',
  'no_active_hooks',
  'team_disabled',
  'action_prohibited',
]);
/** Reasons Slack gives for its own trouble: retried. */
const RETRY_REASONS = new Set([
  'fatal_error',
  'internal_error',
  'service_unavailable',
  'request_timeout',
  'rollup_error',
]);

/** What reading an answer needs: who the credentials are, for a pause's message. */
export interface SlackAnswerContext {
  readonly destination: string;
  /** `the token in SLACK_BOT_TOKEN`, `the webhook URL in SLACK_WEBHOOK_URL`. */
  readonly credential: string;
  readonly nowMs: number;
}

/** A 429's wait, from its Retry-After (seconds or a date). */
export function rateLimitWait(retryAfter: string | null, nowMs: number): number {
  const seconds = parseRetryAfterSeconds(retryAfter, undefined, nowMs);
  const ms = seconds === undefined ? DEFAULT_SLACK_WAIT_MS : Math.round(seconds * 1000);
  return Math.min(Math.max(ms, DEFAULT_SLACK_WAIT_MS), MAX_SLACK_WAIT_MS);
}

/** What Slack's reason (an `error` field, or a webhook's text) means. */
export function classifyReason(
  status: number,
  reason: string,
  context: SlackAnswerContext,
  extra = '',
): AttemptResult {
  const safe = reason.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 80) || `HTTP ${status}`;
  if (AUTH_REASONS.has(safe)) {
    return {
      outcome: 'pause',
      status: status === 200 ? 401 : status,
      error:
        `Slack refused ${context.credential} (${safe}${extra}): replace it, then run ` +
        `hooksync destinations resume ${context.destination}`,
    };
  }
  if (safe === 'rate_limited' || safe === 'ratelimited') {
    return { outcome: 'wait', status: 429, error: `Slack: ${safe}`, waitMs: DEFAULT_SLACK_WAIT_MS };
  }
  if (RETRY_REASONS.has(safe)) return { outcome: 'retry', status, error: `Slack: ${safe}` };
  return { outcome: 'fail', status, error: `Slack: ${safe}${extra}` };
}

/** The longest array a Slack answer is read with (its `response_metadata` lists are a few entries). */
export const MAX_SLACK_ANSWER_ITEMS = 100;

/** What is read of a Web API answer; the rest is Slack's and left alone. */
const webApiAnswerSchema = z.looseObject({
  ok: z.boolean(),
  error: z.string().optional(),
  needed: z.string().optional(),
});

/** `body` as `schema` reads it after the bounded shape check (contract/answer-shape.ts), or what was wrong. */
export function readSlackAnswer<S extends z.ZodType>(schema: S, body: unknown) {
  return parseAnswer(schema, body, MAX_SLACK_ANSWER_ITEMS);
}

/** What a Web API answer (status, Retry-After, parsed body) means; `ok: true` is delivered. */
export function classifyWebApi(
  status: number,
  retryAfter: string | null,
  body: unknown,
  context: SlackAnswerContext,
): AttemptResult {
  if (status === 429) {
    const waitMs = rateLimitWait(retryAfter, context.nowMs);
    return { outcome: 'wait', status, error: `Slack: rate limited (HTTP 429), waiting ${waitMs} ms`, waitMs };
  }
  if (status >= 500 || status === 408) return { outcome: 'retry', status, error: `Slack: HTTP ${status}` };
  const read = readSlackAnswer(webApiAnswerSchema, body);
  if (status !== 200 || !read.ok) {
    const problem = read.ok ? '' : `: ${boundOutsideText(read.problem, 200)}`;
    return { outcome: 'retry', status, error: `Slack: unexpected answer (HTTP ${status}${problem})` };
  }
  const answer = read.data;
  if (answer.ok) return { outcome: 'delivered', status };
  const reason = answer.error ?? 'unknown_error';
  const needed = answer.needed === undefined ? '' : `, needed ${answer.needed.slice(0, 100)}`;
  return classifyReason(status, reason, context, needed);
}

/** What an incoming webhook's answer (status, Retry-After, text) means; `ok` is delivered. */
export function classifyWebhook(
  status: number,
  retryAfter: string | null,
  text: string,
  context: SlackAnswerContext,
): AttemptResult {
  if (status === 429) {
    const waitMs = rateLimitWait(retryAfter, context.nowMs);
    return { outcome: 'wait', status, error: `Slack: rate limited (HTTP 429), waiting ${waitMs} ms`, waitMs };
  }
  if (status >= 200 && status < 300) return { outcome: 'delivered', status };
  if (status >= 500)
    return { outcome: 'retry', status, error: `Slack: HTTP ${status} ${text.slice(0, 80)}`.trim() };
  return classifyReason(status, text.trim() === '' ? `HTTP ${status}` : text.trim(), context);
}

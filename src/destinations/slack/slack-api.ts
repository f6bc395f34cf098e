/**
 * Slack's Web API as the slack destination uses it: `chat.postMessage` (JSON, the bot token as a bearer
 * header) and `users.lookupByEmail` (form-encoded), at `api_url`. Answers are read under a size cap and
 * classified by slack-answer.ts; a post's answer lost in flight is retried by the lane, so a message may
 * appear twice then (Slack has no idempotency key for posts).
 */

import { z } from 'zod';
import { readCappedBody } from '../../client/read-capped-body.js';
import type { OwnerTarget } from '../alerts/alert-medium.js';
import type { AttemptResult } from '../destination-type.js';
import { classifyWebApi, readSlackAnswer, type SlackAnswerContext } from './slack-answer.js';
import type { SlackMessage } from './slack-blocks.js';

/** Slack's Web API address. */
export const DEFAULT_SLACK_API_URL = 'https://slack.com/api';
/** Largest Slack answer read. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** What the client needs. */
export interface SlackApiConfig {
  readonly destination: string;
  readonly apiUrl: string;
  readonly token: string;
  readonly tokenEnv: string;
  readonly fetch: typeof globalThis.fetch;
  readonly now: () => number;
}

/** A Web API call's answer: the parsed body when there was one, and what it means. */
interface Called {
  readonly result: AttemptResult;
  readonly body: unknown;
}

/** What is read of `users.lookupByEmail`'s answer: the user's id, and whether it is deactivated. */
const lookupAnswerSchema = z.looseObject({
  user: z.looseObject({ id: z.string().regex(/^[UW][A-Z0-9]{2,}$/), deleted: z.boolean().optional() }),
});

function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'timed out';
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? `network error (${cause.code})` : 'network error';
}

/** The slack Web API client. */
export function createSlackApi(config: SlackApiConfig) {
  const base = config.apiUrl.replace(/\/+$/, '');
  const context = (): SlackAnswerContext => ({
    destination: config.destination,
    credential: `the token in ${config.tokenEnv}`,
    nowMs: config.now(),
  });
  const call = async (
    method: string,
    body: string,
    contentType: string,
    signal: AbortSignal,
  ): Promise<Called> => {
    let response: Response;
    try {
      response = await config.fetch(`${base}/${method}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${config.token}`,
          'content-type': contentType,
          'user-agent': 'hooksync-destinations',
        },
        body,
        redirect: 'manual',
        signal,
      });
    } catch (error) {
      return {
        result: { outcome: 'retry', status: null, error: describeFailure(error, signal) },
        body: undefined,
      };
    }
    let parsed: unknown;
    try {
      const bytes = await readCappedBody(response, { maxBytes: MAX_ANSWER_BYTES, signal });
      parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (signal.aborted) {
      return {
        result: { outcome: 'retry', status: null, error: 'timed out reading the answer' },
        body: undefined,
      };
    }
    const result = classifyWebApi(response.status, response.headers.get('retry-after'), parsed, context());
    return { result, body: parsed };
  };
  return {
    /** Posts `message` to `channel` (an id, `#name`, or a user id for a direct message). */
    async postMessage(channel: string, message: SlackMessage, signal: AbortSignal): Promise<AttemptResult> {
      const body = JSON.stringify({
        channel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
      });
      return (await call('chat.postMessage', body, 'application/json; charset=utf-8', signal)).result;
    },
    /** The Slack user whose e-mail is `email`, as a direct message's target. */
    async lookupByEmail(email: string, signal: AbortSignal): Promise<OwnerTarget> {
      const body = new URLSearchParams({ email }).toString();
      const { result, body: answer } = await call(
        'users.lookupByEmail',
        body,
        'application/x-www-form-urlencoded',
        signal,
      );
      if (result.outcome === 'delivered') {
        const read = readSlackAnswer(lookupAnswerSchema, answer);
        if (!read.ok) {
          return {
            trouble: {
              outcome: 'retry',
              status: 200,
              error: 'Slack: users.lookupByEmail answered no user id',
            },
          };
        }
        const { user } = read.data;
        if (user.deleted === true) return { unknown: 'the owner is deactivated in Slack' };
        return { target: user.id };
      }
      if (result.outcome === 'fail' && /users?_not_found/.test(result.error)) {
        return { unknown: 'Slack knows no user with the owner\u2019s e-mail' };
      }
      return { trouble: result };
    },
  };
}

/** The Web API client's type. */
export type SlackApi = ReturnType<typeof createSlackApi>;

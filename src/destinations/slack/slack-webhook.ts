/**
 * Posting to a Slack incoming webhook: JSON `{text, blocks}` to the URL from the environment; the answer
 * is plain text with a real status (`ok`; `invalid_payload`, `channel_is_archived` 410, `no_text`, ...),
 * classified as the Web API's reasons are (slack-answer.ts). The URL is the secret: it never reaches a
 * message.
 */
import type { AttemptResult } from '../destination-type.js';
import { readAnswer } from '../read-answer.js';
import { classifyWebhook } from './slack-answer.js';
import type { SlackMessage } from './slack-blocks.js';

/** Posts `message` to the webhook at `url`. */
export async function postToWebhook(
  options: {
    readonly url: string;
    readonly urlEnv: string;
    readonly destination: string;
    readonly fetch: typeof globalThis.fetch;
    readonly now: () => number;
  },
  message: SlackMessage,
  signal: AbortSignal,
): Promise<AttemptResult> {
  let response: Response;
  try {
    response = await options.fetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'hooksync-destinations' },
      body: JSON.stringify({ text: message.text, blocks: message.blocks }),
      redirect: 'manual',
      signal,
    });
  } catch {
    return { outcome: 'retry', status: null, error: signal.aborted ? 'timed out' : 'network error' };
  }
  const text = await readAnswer(response);
  if (signal.aborted) return { outcome: 'retry', status: null, error: 'timed out reading the answer' };
  return classifyWebhook(response.status, response.headers.get('retry-after'), text, {
    destination: options.destination,
    credential: `the webhook URL in ${options.urlEnv}`,
    nowMs: options.now(),
  });
}

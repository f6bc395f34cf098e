/**
 * Slack's own client (@slack/web-api, retries off) judges the Slack stand-in: what it posts lands, Slack's
 * errors arrive as its platform errors (HTTP 200, `ok: false`), a 429 as its rate-limit error, a lookup of
 * an unknown e-mail as `users_not_found`.
 */
import { ErrorCode, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../helpers/slack/stand-in.js';

describe('the Slack stand-in, as Slack’s own client sees it', () => {
  let slack: SlackStandIn;
  let client: WebClient;

  beforeAll(async () => {
    slack = await startSlackStandIn({
      channels: [
        { id: 'C0GENERAL01', name: 'general' },
        { id: 'C0ARCHIVE01', name: 'old', archived: true },
      ],
      users: [{ id: 'U0JANE00001', email: 'jane@example.com' }],
    });
    client = new WebClient(slack.token, {
      slackApiUrl: `${slack.apiUrl}/`,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
  });
  afterAll(async () => slack.close());

  it('posts, looks users up, and answers errors as Slack does', async () => {
    const posted = await client.chat.postMessage({
      channel: 'C0GENERAL01',
      text: 'hello',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*hello*' } }],
    });
    expect(posted.ok).toBe(true);
    expect(posted.channel).toBe('C0GENERAL01');
    expect(posted.ts).toMatch(/^\d+\.\d{6}$/);
    expect(slack.in('C0GENERAL01')).toHaveLength(1);

    const user = await client.users.lookupByEmail({ email: 'jane@example.com' });
    expect(user.user?.id).toBe('U0JANE00001');
    await expect(client.users.lookupByEmail({ email: 'nobody@example.com' })).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { ok: false, error: 'users_not_found' },
    });
    await expect(client.chat.postMessage({ channel: 'C0ARCHIVE01', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { error: 'is_archived' },
    });
    await expect(client.chat.postMessage({ channel: 'C0NOWHERE01', text: 'x' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
    await expect(client.chat.postMessage({ channel: 'C0GENERAL01', text: '' })).rejects.toMatchObject({
      data: { error: 'no_text' },
    });
    slack.fail({ method: 'chat.postMessage', status: 429, retryAfter: 3, error: 'ratelimited' });
    await expect(client.chat.postMessage({ channel: 'C0GENERAL01', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 3,
    });
    const bad = new WebClient('xoxb-wrong', { slackApiUrl: `${slack.apiUrl}/`, retryConfig: { retries: 0 } });
    await expect(bad.chat.postMessage({ channel: 'C0GENERAL01', text: 'x' })).rejects.toMatchObject({
      data: { error: 'invalid_auth' },
    });
  });
});

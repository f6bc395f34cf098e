import { describe, expect, it } from 'vitest';
import { classifyWebApi, MAX_SLACK_ANSWER_ITEMS } from '../../../../src/destinations/slack/slack-answer.js';

const context = { destination: 'team', credential: 'the token in SLACK_TOKEN', nowMs: 0 };

describe('classifyWebApi', () => {
  it('delivers ok: true and reads a refusal by its reason', () => {
    expect(classifyWebApi(200, null, { ok: true, channel: 'C1' }, context)).toEqual({
      outcome: 'delivered',
      status: 200,
    });
    expect(classifyWebApi(200, null, { ok: false, error: 'channel_not_found' }, context)).toMatchObject({
      outcome: 'fail',
      error: expect.stringContaining('channel_not_found'),
    });
  });

  it('refuses an answer past the shape bounds before the schema reads it, as a retry naming the place', () => {
    const flood = {
      ok: true,
      response_metadata: { warnings: new Array(MAX_SLACK_ANSWER_ITEMS + 1).fill(0) },
    };
    expect(classifyWebApi(200, null, flood, context)).toEqual({
      outcome: 'retry',
      status: 200,
      error: `Slack: unexpected answer (HTTP 200: response_metadata: ${MAX_SLACK_ANSWER_ITEMS + 1} items, more than the ${MAX_SLACK_ANSWER_ITEMS} read)`,
    });
    expect(classifyWebApi(200, null, { ok: 'yes' }, context)).toMatchObject({ outcome: 'retry' });
  });
});

/**
 * The real executable with a slack destination, killed with SIGKILL while a post is in flight (Slack has
 * taken the message, its answer has not come): after the restart every change is posted, and only the one
 * in flight may be posted twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { type SlackStandIn, startSlackStandIn } from '../../helpers/slack/stand-in.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { until } from '../destinations/destinations-context.js';
import { writeServeEnv } from '../destinations/serve-kill.js';
import { addChange, eventStates } from './alerts-world.js';

const fixture = useServeFixture('hooksync-slack-kill-');
let slack: SlackStandIn;
const NAMES = ['Ada', 'Bea', 'Cy', 'Dee', 'Eve', 'Fay'];

beforeAll(async () => {
  slack = await startSlackStandIn({ channels: [{ id: 'C0CHAMPION1', name: 'champions' }], burst: 100 });
});
afterAll(async () => slack?.close());

describe('hooksync serve with a slack destination, killed', () => {
  it('posts every change after a SIGKILL mid-post, at most the one in flight twice', async () => {
    const env = writeServeEnv(
      fixture,
      'slack-kill',
      {
        destinations: [
          {
            name: 'sales',
            type: 'slack',
            token: { env: 'SLACK_BOT_TOKEN' },
            api_url: slack.apiUrl,
            channel_interval: '0ms',
            concurrency: 1,
            timeout: '2s',
            routes: [{ channel: '#champions' }],
          },
        ],
      },
      { SLACK_BOT_TOKEN: slack.token },
    );
    // The third post is taken by Slack and never answered.
    slack.fail({ method: 'chat.postMessage', hold: true, skip: 2 });
    const serve = await spawnServe(env);
    const database = await openMigratedDatabase(env.HOOKSYNC_DATABASE_URL!);
    try {
      // serve has synced its destinations: changes written now get their events.
      for (const first of NAMES) await addChange({ database }, { first });
      await until('a post is in flight', () => slack.held() === 1, 20_000);
      serve.child.kill('SIGKILL');
      expect(await serve.exited).toBe('SIGKILL');
      expect(slack.posted).toHaveLength(3);

      const restarted = await spawnServe(env);
      try {
        await until(
          'every change is delivered',
          async () =>
            (await eventStates({ database }, 'sales')).every((event) => event.status === 'delivered'),
          60_000,
        );
      } finally {
        restarted.child.kill('SIGTERM');
        await restarted.exited;
      }
      const texts = slack.posted.map((message) => message.text ?? '');
      for (const first of NAMES)
        expect(texts.filter((text) => text.startsWith(`${first} `)).length).toBeGreaterThan(0);
      // Only the post in flight (the third) may have been repeated.
      expect(texts.length).toBeLessThanOrEqual(NAMES.length + 1);
      const repeated = texts.filter((text, index) => texts.indexOf(text) !== index);
      expect(repeated.every((text) => text === texts[2])).toBe(true);
    } finally {
      await database.close();
    }
  }, 120_000);
});

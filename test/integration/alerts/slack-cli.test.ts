/**
 * `hooksync destinations test|replay --dry-run|deliver|list` for a slack destination, in-process, against
 * the Slack stand-in; and a bad route refused with exit 2 before anything starts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { type SlackStandIn, startSlackStandIn } from '../../helpers/slack/stand-in.js';
import { addChange } from './alerts-world.js';

let dir: string;
let slack: SlackStandIn;
let env: Record<string, string>;

const write = (name: string, routes: unknown[]) => {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      destinations: [
        {
          name: 'sales',
          type: 'slack',
          token: { env: 'SLACK_BOT_TOKEN' },
          api_url: slack.apiUrl,
          channel_interval: '0ms',
          routes,
        },
      ],
    }),
  );
  return file;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hooksync-slack-cli-'));
  slack = await startSlackStandIn({
    channels: [
      { id: 'C0CHAMPION1', name: 'champions' },
      { id: 'C0REVOPS001', name: 'revops', notMember: true },
    ],
  });
  const file = write('destinations.json', [
    { channel: '#champions' },
    { channel: '#revops', digest: '0 9 * * 1', changes: ['left'] },
  ]);
  env = {
    HOOKSYNC_DATABASE_URL: join(dir, 'cli.db'),
    HOOKSYNC_DESTINATIONS: file,
    SLACK_BOT_TOKEN: slack.token,
  };
});
afterAll(async () => {
  await slack.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('hooksync destinations for a slack destination', () => {
  it('tests each channel, previews a replay, delivers and counts', async () => {
    const test = await runCliCaptured(['destinations', 'test', 'sales'], { env });
    expect(test.code).toBe(1);
    expect(test.stderr).toContain('posted to #champions; not to #revops (Slack: not_in_channel)');
    expect(slack.in('#champions')).toHaveLength(1);

    const database = await openMigratedDatabase(env.HOOKSYNC_DATABASE_URL!);
    try {
      await addChange({ database }, { first: 'Ann' });
      await addChange({ database }, { first: 'Bo', change: 'left' });
    } finally {
      await database.close();
    }
    const deliver = await runCliCaptured(['destinations', 'deliver'], { env });
    expect(deliver.code).toBe(0);
    expect(slack.in('#champions').map((message) => message.text)).toContain(
      'Ann Doe moved from Acme to Globex, now CRO',
    );

    const dry = await runCliCaptured(
      ['destinations', 'replay', 'sales', '--since', '2000-01-01T00:00:00Z', '--dry-run'],
      {
        env,
      },
    );
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('sales: the replay would post 3 message(s)');
    expect(dry.stdout).toContain('#champions: Ann Doe moved from Acme to Globex, now CRO');
    expect(dry.stdout).toContain('#revops (in the digest "0 9 * * 1"): Bo Doe left Acme');
    const posted = slack.posted.length;
    expect(slack.posted).toHaveLength(posted);

    const list = await runCliCaptured(['destinations', 'list'], { env });
    expect(list.stdout).toContain('messages 2 sent');
  });

  it('refuses a bad route with one line naming the destination and field, exit 2', async () => {
    const file = write('bad.json', [{ channel: 'champions' }]);
    const run = await runCliCaptured(['destinations', 'list'], {
      env: { ...env, HOOKSYNC_DESTINATIONS: file },
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('destination "sales", field routes[0].channel: must be a channel "#name"');
  });
});

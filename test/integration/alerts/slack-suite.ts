/**
 * The slack destination against the Slack stand-in, with a real database and dispatcher: routes to
 * channels and owners' direct messages, the fallback, each target once, Slack's `ok: false` reasons (fail
 * or pause), 429s waited out, digests, the incoming webhook, replay. Run on SQLite and Postgres.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { replayEvents } from '../../../src/destinations/destination-admin.js';
import { readCounters } from '../../../src/destinations/destination-counters.js';
import { resumeDestination } from '../../../src/destinations/outbox.js';
import { startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { type SlackStandIn, startSlackStandIn } from '../../helpers/slack/stand-in.js';
import {
  type DestinationsWorld,
  openWorld,
  type Provision,
  until,
} from '../destinations/destinations-context.js';
import { addChange, eventStates, slackSales, textsIn } from './alerts-world.js';

const CHAMPIONS = 'C0CHAMPION1';
const REVOPS = 'C0REVOPS001';
const UNROUTED = 'C0UNROUTED1';

/** Defines the suite on the databases `provision` makes. */
export function defineSlackSuite(provision: Provision): void {
  let world: DestinationsWorld;
  let slack: SlackStandIn;

  beforeAll(async () => {
    slack = await startSlackStandIn({
      channels: [
        { id: CHAMPIONS, name: 'champions' },
        { id: REVOPS, name: 'revops' },
        { id: UNROUTED, name: 'unrouted' },
        { id: 'C0ARCHIVED1', name: 'archived', archived: true },
      ],
      users: [{ id: 'U0REPJANE01', email: 'rep@example.com' }],
      burst: 50,
    });
  });
  afterAll(async () => slack.close());
  beforeEach(async () => {
    world = await openWorld(provision);
    slack.posted.length = 0;
    slack.calls.length = 0;
    slack.restore();
  });
  afterEach(async () => world.close());

  const env = () => ({ SLACK_BOT_TOKEN: slack.token, SLACK_WEBHOOK_URL: slack.webhookUrl });
  const sales = (routes: unknown[], extra: Record<string, unknown> = {}) => slackSales(slack, routes, extra);
  const start = async (destinations: unknown[]) => {
    const configured = await world.configure({ destinations }, env());
    return world.dispatcher(configured);
  };

  it('posts each change to every route that takes it: channels, the owner by direct message, the fallback', async () => {
    await start([
      sales([
        { watches: ['champions'], changes: ['moved', 'left'], channel: '#champions' },
        { changes: ['moved'], to: 'owner', fallback_channel: '#unrouted' },
        { changes: ['left'], channel: REVOPS, template: '{{name}} ({{region}}) left {{previous_company}}' },
      ]),
    ]);
    await addChange(world, { fields: { owner_email: 'rep@example.com' } });
    await addChange(world, { first: 'Ann', last: 'Lee', fields: { owner_email: 'nobody@example.com' } });
    await addChange(world, { change: 'left', first: 'Bo', last: 'Ray', fields: { region: 'EMEA' } });
    await until('every change posted', async () =>
      (await eventStates(world, 'sales')).every((event) => event.status === 'delivered'),
    );
    // One message per change; the order changes are posted in is not a promise (events are claimed in batches).
    const champions = slack.in('#champions');
    expect(champions.map((message) => message.text).sort()).toEqual([
      'Ann Lee moved from Acme to Globex, now CRO',
      'Bo Ray left Acme',
      'Jane Doe moved from Acme to Globex, now CRO',
    ]);
    const jane = champions.find((message) => message.text?.startsWith('Jane Doe'));
    const blocks = jane!.blocks as Array<Record<string, unknown>>;
    expect(blocks[0]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: '*Jane Doe* moved from *Acme* to *Globex*, now CRO' },
    });
    expect(JSON.stringify(blocks[1])).toContain('<https://www.linkedin.com/in/jane-doe|LinkedIn>');
    // The owner Slack knows gets a direct message; the one it does not goes to the fallback.
    expect(slack.in('U0REPJANE01').map((message) => message.text)).toEqual([
      'Jane Doe moved from Acme to Globex, now CRO',
    ]);
    expect(slack.in('#unrouted').map((message) => message.text)).toEqual([
      'Ann Lee moved from Acme to Globex, now CRO',
    ]);
    expect(slack.in(REVOPS).map((message) => message.text)).toEqual(['Bo Ray (EMEA) left Acme']);
    const counters = (await readCounters(world.database.db)).get('sales');
    expect(counters).toMatchObject({ messages_sent: 6 });
  });

  it('fails a change no route takes, and an owner’s change with no owner and no fallback, with the reason', async () => {
    await start([sales([{ changes: ['moved'], to: 'owner' }])]);
    await addChange(world, { change: 'left' });
    await addChange(world, { fields: {} });
    await until('both failed', async () =>
      (await eventStates(world, 'sales')).every((event) => event.status === 'failed'),
    );
    const errors = (await eventStates(world, 'sales')).map((event) => event.last_error);
    expect(errors[0]).toContain('no route takes a left change of watch champions');
    expect(errors[1]).toContain('sends to the owner, and the change carries no owner_email');
    expect(errors[1]).toContain('no fallback');
    expect(slack.posted).toHaveLength(0);
  });

  it('fails an event with Slack’s reason, posts each target once across retries, and replays only what is replayed', async () => {
    await start([sales([{ channel: '#champions' }, { channel: '#archived' }])]);
    await addChange(world);
    await until('failed', async () => (await eventStates(world, 'sales'))[0]?.status === 'failed');
    const [event] = await eventStates(world, 'sales');
    expect(event!.last_error).toContain('Slack: is_archived');
    expect(event!.attempts).toBe(1);
    expect(slack.in('#champions')).toHaveLength(1);
    // Unarchived, the failed event is replayed: only the target still owed is posted.
    slack.channels.find((channel) => channel.name === 'archived')!.archived = false;
    await replayEvents(world.database.db, 'sales', { failed: true }, new Date().toISOString());
    await until('delivered', async () => (await eventStates(world, 'sales'))[0]?.status === 'delivered');
    expect(slack.in('#champions')).toHaveLength(1);
    expect(slack.in('#archived')).toHaveLength(1);
    // A delivered event replayed posts again, to each target once.
    await replayEvents(world.database.db, 'sales', {}, new Date().toISOString());
    await until('posted again', () => slack.in('#archived').length === 2);
    await until(
      'delivered again',
      async () => (await eventStates(world, 'sales'))[0]?.status === 'delivered',
    );
    expect(slack.in('#champions')).toHaveLength(2);
  });

  it('retries Slack’s own trouble without posting twice where it posted; waits out a 429 without counting an attempt', async () => {
    await start([sales([{ channel: '#champions' }, { channel: '#revops' }])]);
    slack.fail({ method: 'chat.postMessage', status: 429, retryAfter: 1, error: 'ratelimited' });
    await addChange(world);
    await until('delivered', async () => (await eventStates(world, 'sales'))[0]?.status === 'delivered');
    const [event] = await eventStates(world, 'sales');
    // The 429 was not an attempt: the delivery that followed is the first.
    expect(event!.attempts).toBe(1);
    expect(slack.in('#champions')).toHaveLength(1);
    expect(slack.in('#revops')).toHaveLength(1);
    expect((await readCounters(world.database.db)).get('sales')).toMatchObject({ rate_limited: 1 });

    // The second target's internal_error is retried; the first target is not posted again.
    slack.fail({ method: 'chat.postMessage', error: 'internal_error', times: 1 });
    slack.posted.length = 0;
    await addChange(world);
    await until('delivered', async () =>
      (await eventStates(world, 'sales')).every((state) => state.status === 'delivered'),
    );
    expect(slack.in('#champions')).toHaveLength(1);
    expect(slack.in('#revops')).toHaveLength(1);
    expect((await eventStates(world, 'sales'))[1]!.attempts).toBe(2);
  });

  it('pauses on a revoked token, naming the variable, and continues after resume', async () => {
    await start([sales([{ channel: '#champions' }])]);
    slack.revoke('token_revoked');
    await addChange(world);
    await until('paused', async () => {
      const row = await world.database.db
        .selectFrom('destinations')
        .select(['paused_at', 'pause_reason'])
        .where('name', '=', 'sales')
        .executeTakeFirst();
      return row?.paused_at !== null && row?.paused_at !== undefined;
    });
    const row = await world.database.db
      .selectFrom('destinations')
      .select('pause_reason')
      .where('name', '=', 'sales')
      .executeTakeFirstOrThrow();
    expect(row.pause_reason).toContain('the token in SLACK_BOT_TOKEN (token_revoked)');
    expect((await eventStates(world, 'sales'))[0]!.status).toBe('pending');
    slack.restore();
    await resumeDestination(world.database.db, 'sales', new Date().toISOString());
    await until(
      'delivered after resume',
      async () => (await eventStates(world, 'sales'))[0]?.status === 'delivered',
    );
    expect(slack.in('#champions')).toHaveLength(1);
  });

  it('gathers a digest route’s changes into one message per tick, none when nothing is new', async () => {
    const dispatcher = await start([
      sales([{ changes: ['moved', 'left'], channel: '#revops', digest: '0 9 * * 1' }]),
    ]);
    await addChange(world, { first: 'A', last: 'One' });
    await addChange(world, { first: 'B', last: 'Two', change: 'left' });
    await addChange(world, { first: 'C', last: 'Three', watch: 'new-vps' });
    await until('gathered', async () =>
      (await eventStates(world, 'sales')).every((event) => event.status === 'delivered'),
    );
    expect(slack.posted).toHaveLength(0);
    expect((await readCounters(world.database.db)).get('sales')).toMatchObject({ digests_pending: 3 });
    await dispatcher.deliverOnce();
    const digests = slack.in('#revops');
    expect(digests).toHaveLength(1);
    expect(digests[0]!.text).toBe('Digest: 3 changes: 2 moved, 1 left');
    const sections = JSON.stringify(digests[0]!.blocks);
    expect(sections).toContain('Watch champions');
    expect(sections).toContain('Watch new-vps');
    expect(sections).toContain('*B Two* left *Acme*');
    await dispatcher.deliverOnce();
    expect(slack.in('#revops')).toHaveLength(1);
    expect((await readCounters(world.database.db)).get('sales')).toMatchObject({ digests_pending: 0 });
  });

  it('finds the owner in HubSpot (hubspot_owner_id → owners API → e-mail → Slack user), once per contact', async () => {
    const hs = await startHubSpotStandIn();
    try {
      hs.addOwner({ id: '41629779', userId: 9586504, email: 'REP@example.com' });
      hs.addOwner({ id: '41629780', userId: 9586505, email: 'gone@example.com', archived: true });
      const owned = hs.seed('contacts', { email: 'jane@acme.com', hubspot_owner_id: '41629779' });
      const unowned = hs.seed('contacts', { email: 'ann@acme.com' });
      const configured = await world.configure(
        {
          destinations: [
            sales([{ changes: ['moved'], to: 'owner', fallback_channel: '#unrouted' }], { owner_crm: 'crm' }),
            { name: 'crm', type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hs.url },
          ],
        },
        { ...env(), HUBSPOT_TOKEN: hs.token },
      );
      await world.dispatcher(configured);
      await addChange(world, { fields: { hs_object_id: owned } });
      await addChange(world, { first: 'Jo', fields: { hs_object_id: owned } });
      await addChange(world, { first: 'Ann', fields: { hs_object_id: unowned } });
      // A carried owner id needs no read of the contact; an archived owner is still found.
      await addChange(world, { first: 'Gus', fields: { hubspot_owner_id: '41629780' } });
      await until('delivered', async () =>
        (await eventStates(world, 'sales')).every((event) => event.status === 'delivered'),
      );
      const texts = (channel: string) => textsIn(slack, channel);
      expect(texts('U0REPJANE01')).toEqual([
        'Jane Doe moved from Acme to Globex, now CRO',
        'Jo Doe moved from Acme to Globex, now CRO',
      ]);
      expect(texts('#unrouted')).toEqual([
        'Ann Doe moved from Acme to Globex, now CRO',
        'Gus Doe moved from Acme to Globex, now CRO',
      ]);
      // The owner of a contact is asked once; the owner's Slack user once.
      const reads = hs.calls().filter((call) => call.path === `/crm/v3/objects/contacts/${owned}`);
      expect(reads).toHaveLength(1);
      expect(slack.calls.filter((call) => call.method === 'users.lookupByEmail')).toHaveLength(2);
    } finally {
      await hs.close();
    }
  });

  it('posts through an incoming webhook, and fails on its archived channel (410)', async () => {
    await start([
      {
        name: 'hook',
        type: 'slack',
        webhook_url: { env: 'SLACK_WEBHOOK_URL' },
        channel_interval: '0ms',
      },
    ]);
    await addChange(world);
    await until('posted', () => slack.posted.length === 1);
    expect(slack.posted[0]).toMatchObject({
      via: 'webhook',
      text: 'Jane Doe moved from Acme to Globex, now CRO',
    });
    slack.fail({ method: 'webhook', status: 410, error: 'channel_is_archived' });
    await addChange(world);
    await until('failed', async () => (await eventStates(world, 'hook'))[1]?.status === 'failed');
    expect((await eventStates(world, 'hook'))[1]!.last_error).toContain('Slack: channel_is_archived');
  });
}

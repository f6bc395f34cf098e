/**
 * Owners from Salesforce and Pipedrive (issue 38 item 2): a slack destination routing `"to": "owner"` with
 * `owner_crm` naming a `salesforce`, then a `pipedrive` destination, against their stand-ins and the Slack
 * stand-in, on SQLite. Salesforce: `Owner.Email` of the carried Contact or Lead in one relationship query;
 * a queue or a deactivated user owns nothing. Pipedrive: the person's `owner_id`, then `GET
 * /api/v1/users/{id}`, read once per user; a deactivated user owns nothing. What has no owner goes to the
 * fallback channel.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { addPdUser } from '../../helpers/pipedrive/users.js';
import { startSalesforceStandIn } from '../../helpers/salesforce/stand-in.js';
import { type SlackStandIn, startSlackStandIn } from '../../helpers/slack/stand-in.js';
import {
  type DestinationsWorld,
  openWorld,
  provisionSqlite,
  until,
} from '../destinations/destinations-context.js';
import { salesforceEntry, salesforceSecrets } from '../destinations/salesforce-world.js';
import { addChange, eventStates, slackSales, textsIn } from './alerts-world.js';

const REP_DM = 'U0REPJANE01';
const GONE_DM = 'U0GONE00001';
const OWNER_ROUTE = [{ changes: ['moved'], to: 'owner', fallback_channel: '#unrouted' }];
const moved = (first: string) => `${first} Doe moved from Acme to Globex, now CRO`;

describe('owners from Salesforce and Pipedrive reach their Slack direct messages', () => {
  let world: DestinationsWorld;
  let slack: SlackStandIn;

  beforeAll(async () => {
    slack = await startSlackStandIn({
      channels: [{ id: 'C0UNROUTED1', name: 'unrouted' }],
      // Slack still knows the CRM's deactivated user: only the CRM's answer keeps them out.
      users: [
        { id: REP_DM, email: 'rep@example.com' },
        { id: GONE_DM, email: 'gone@example.com' },
      ],
      burst: 50,
    });
  });
  afterAll(async () => slack.close());
  beforeEach(async () => {
    world = await openWorld(provisionSqlite);
    slack.posted.length = 0;
    slack.calls.length = 0;
  });
  afterEach(async () => world.close());

  const delivered = () =>
    until('delivered', async () =>
      (await eventStates(world, 'sales')).every((event) => event.status === 'delivered'),
    );

  it('Salesforce: Owner.Email of the carried Contact or Lead, one query per contact; a queue or an inactive user goes to the fallback', async () => {
    const sf = await startSalesforceStandIn();
    try {
      const rep = sf.addUser({ Email: 'REP@example.com', FirstName: 'Rita', LastName: 'Rep' });
      const gone = sf.addUser({ Email: 'gone@example.com', IsActive: false });
      // A queue whose address Slack knows: still no one's direct message.
      const queue = sf.addQueue({ Name: 'Inbound', Email: 'rep@example.com' });
      const jane = sf.seed('Contact', { LastName: 'Doe', OwnerId: rep });
      const ann = sf.seed('Contact', { LastName: 'Doe', OwnerId: gone });
      const lea = sf.seed('Lead', { LastName: 'Doe', Company: 'Acme', OwnerId: rep });
      const quinn = sf.seed('Lead', { LastName: 'Doe', Company: 'Acme', OwnerId: queue });
      const configured = await world.configure(
        {
          destinations: [
            slackSales(slack, OWNER_ROUTE, { owner_crm: 'crm' }),
            { name: 'crm', ...salesforceEntry(sf) },
          ],
        },
        { SLACK_BOT_TOKEN: slack.token, ...salesforceSecrets(sf) },
      );
      await world.dispatcher(configured);
      await addChange(world, { first: 'Jane', fields: { sf_id: jane } });
      await addChange(world, { first: 'Jo', fields: { sf_id: jane } });
      await addChange(world, { first: 'Lea', fields: { sf_id: lea } });
      await addChange(world, { first: 'Ann', fields: { sf_id: ann } });
      await addChange(world, { first: 'Quinn', fields: { sf_id: quinn } });
      await addChange(world, { first: 'Nils', fields: { sf_id: 'not-an-id' } });
      await delivered();
      expect(textsIn(slack, REP_DM)).toEqual([moved('Jane'), moved('Jo'), moved('Lea')]);
      expect(textsIn(slack, '#unrouted')).toEqual([moved('Ann'), moved('Nils'), moved('Quinn')]);
      expect(textsIn(slack, GONE_DM)).toEqual([]);
      const queries = sf.calls().filter((call) => call.path.endsWith('/query'));
      const of = (id: string) => queries.filter((call) => decodeURIComponent(call.query).includes(id));
      expect(of(jane)).toHaveLength(1);
      expect(decodeURIComponent(of(jane)[0]!.query)).toContain('Owner.Email');
      expect(decodeURIComponent(of(lea)[0]!.query)).toContain('FROM Lead');
    } finally {
      await sf.close();
    }
  });

  it("Pipedrive: the person's owner_id, then the user's e-mail, each user read once; an inactive or missing owner goes to the fallback, trouble is retried", async () => {
    const pd = await startPipedriveStandIn();
    try {
      const rep = addPdUser(pd.store, { email: 'rep@example.com', name: 'Rita Rep' });
      const gone = addPdUser(pd.store, { email: 'gone@example.com', active_flag: false });
      const jane = pd.store.insert('persons', { name: 'Jane Doe', owner_id: rep });
      const bo = pd.store.insert('persons', { name: 'Bo Doe', owner_id: rep });
      const ann = pd.store.insert('persons', { name: 'Ann Doe', owner_id: gone });
      const configured = await world.configure(
        {
          destinations: [
            slackSales(slack, OWNER_ROUTE, { owner_crm: 'crm' }),
            { name: 'crm', type: 'pipedrive', token: { env: 'PIPEDRIVE_TOKEN' }, base_url: pd.url },
          ],
        },
        { SLACK_BOT_TOKEN: slack.token, PIPEDRIVE_TOKEN: pd.token },
      );
      await world.dispatcher(configured);
      // Trouble reading the owner is not "no owner": the change waits for the answer, never the fallback.
      pd.failNext({ method: 'GET', path: /^\/api\/v1\/users\/\d+$/ }, 503, {
        success: false,
        error: 'Unavailable',
      });
      await addChange(world, { first: 'Jane', fields: { pd_id: String(jane.id) } });
      await addChange(world, { first: 'Bo', fields: { pd_id: String(bo.id) } });
      await addChange(world, { first: 'Ann', fields: { pd_id: String(ann.id) } });
      // A person deleted since the watch read it: 404, no owner.
      await addChange(world, { first: 'Gus', fields: { pd_id: '999999' } });
      await delivered();
      expect(textsIn(slack, REP_DM)).toEqual([moved('Bo'), moved('Jane')]);
      expect(textsIn(slack, '#unrouted')).toEqual([moved('Ann'), moved('Gus')]);
      expect(textsIn(slack, GONE_DM)).toEqual([]);
      const reads = (path: string) => pd.calls.filter((call) => call.path === path);
      expect(reads(`/api/v1/users/${rep}`).filter((call) => call.status === 200)).toHaveLength(1);
      expect(pd.calls.filter((call) => call.status === 503)).toHaveLength(1);
      expect(reads(`/api/v2/persons/${jane.id}`)).toHaveLength(1);
      expect(reads(`/api/v1/users/${gone}`).filter((call) => call.status === 200)).toHaveLength(1);
    } finally {
      await pd.close();
    }
  });
});

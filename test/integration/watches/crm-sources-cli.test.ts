/**
 * The watches commands with a CRM source (in-process CLI, SQLite, the simulator, the HubSpot stand-in): the
 * destinations file asked for by name when missing (serve too); a bad CRM source refused with one line
 * naming the watch and the field; `watches run` (dry run and real), `list` and `changes` over HubSpot
 * contacts, the change carrying the contact's hs_object_id.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { type HubSpotStandIn, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { createWebhookSecret } from '../../helpers/standard-webhook-consumer.js';
import { writeWatchesEnv } from '../../helpers/watches-env.js';

const crmWatch = (hubspot: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'crm-contacts',
  launch: 'job-change',
  from: { hubspot },
  every: '30d',
  ...extra,
});

describe('hooksync watches over HubSpot contacts', () => {
  let dir: string;
  let sim: Simulator;
  let hs: HubSpotStandIn;
  let env: Record<string, string>;
  let destinations: string;
  const ids: string[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hooksync-crm-watches-cli-'));
    sim = await createSimulator({ seed: 5 });
    hs = await startHubSpotStandIn({ tenSecondly: 10_000 });
    const acme = hs.seed('companies', { name: 'Acme', domain: 'acme.com' });
    for (const email of ['ann.lee@acme.com', 'bo.chen@acme.com']) {
      const id = hs.seed('contacts', { email, lifecyclestage: 'customer' });
      hs.associatePrimary(id, acme);
      ids.push(id);
      sim.setJobChange({ professional_email: email }, { job_change_status: 'no_change' });
    }
    hs.seed('contacts', { email: 'lead@acme.com', lifecyclestage: 'lead' });
    destinations = join(dir, 'destinations.json');
    await writeFile(
      destinations,
      JSON.stringify({
        destinations: [
          { name: 'crm', type: 'hubspot', token: { env: 'HS_TOKEN' }, base_url: hs.url, rate: '100/1s' },
          {
            name: 'hook',
            type: 'webhook',
            url: 'http://127.0.0.1:9/hook',
            secret: createWebhookSecret(),
          },
        ],
      }),
    );
    env = await writeWatchesEnv(
      sim,
      dir,
      [crmWatch({ destination: 'crm', filter: { lifecyclestage: 'customer' } })],
      { HS_TOKEN: hs.token },
    );
  }, 60_000);
  afterAll(async () => {
    await hs?.close();
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names the destinations file when a CRM source needs it, serve too', async () => {
    const listed = await runCliCaptured(['watches', 'list'], { env });
    expect(listed.code).not.toBe(0);
    expect(listed.stderr.trim().split('\n')).toHaveLength(1);
    expect(listed.stderr).toContain(
      'watch "crm-contacts", field from.hubspot.destination: a HubSpot source reads through a destination: give the destinations file (HOOKSYNC_DESTINATIONS or --destinations)',
    );
    const served = await runCliCaptured(['serve', '--port', '0'], { env });
    expect(served.code).not.toBe(0);
    expect(served.stderr).toContain('field from.hubspot.destination: a HubSpot source reads through');
  }, 60_000);

  it('refuses a bad CRM source with one line naming the watch and the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        crmWatch({ destination: 'nope' }),
        'watch "crm-contacts", field from.hubspot.destination: no destination "nope" in the destinations file (destinations: crm, hook)',
      ],
      [
        crmWatch({ destination: 'hook' }),
        'watch "crm-contacts", field from.hubspot.destination: destination "hook" is of type webhook, not hubspot',
      ],
      [
        crmWatch({ destination: 'crm', filter: { 'Lifecycle Stage': 'customer' } }),
        'watch "crm-contacts", field from.hubspot.filter.Lifecycle Stage: must be a HubSpot property name',
      ],
      [
        crmWatch({ destination: 'crm', filter: { lifecyclestage: ['customer'] } }),
        'watch "crm-contacts", field from.hubspot.filter.lifecyclestage:',
      ],
      [
        { ...crmWatch({ destination: 'crm' }), launch: 'search' },
        'watch "crm-contacts", field from.hubspot: a CRM source reads contacts, for "launch": "job-change" only',
      ],
      [
        crmWatch({ destination: 'crm' }, { carry: { hs_object_id: 'email' } }),
        `watch "crm-contacts", field carry.hs_object_id: the source carries the contact's own id under this key`,
      ],
      [
        crmWatch({ destination: 'crm' }, { map: { professional_email: 'Work Email' } }),
        'watch "crm-contacts", field map.professional_email: "Work Email" is not a HubSpot property name',
      ],
      [
        { ...crmWatch({ destination: 'crm' }), from: { file: 'a.csv', hubspot: { destination: 'crm' } } },
        'watch "crm-contacts", field from: must name one source: file, hubspot, salesforce, pipedrive (got file and hubspot)',
      ],
      [
        {
          ...crmWatch({ destination: 'crm' }),
          from: { salesforce: { destination: 'crm', soql_where: ' ' } },
        },
        'watch "crm-contacts", field from.salesforce.soql_where:',
      ],
      [
        {
          ...crmWatch({ destination: 'crm' }),
          from: { salesforce: { destination: 'crm', soql_where: "Email LIKE '%@acme.com' LIMIT 5" } },
        },
        'watch "crm-contacts", field from.salesforce.soql_where: must be a WHERE condition only (found "LIMIT"); the source orders and pages by Id itself',
      ],
      [
        {
          ...crmWatch({ destination: 'crm' }),
          from: { salesforce: { destination: 'crm', soql_where: "Email = 'x@acme.com'" } },
        },
        'watch "crm-contacts", field from.salesforce.destination: destination "crm" is of type hubspot, not salesforce',
      ],
    ];
    for (const [index, [watch, message]] of cases.entries()) {
      const bad = join(dir, `bad-${index}.json`);
      await writeFile(bad, JSON.stringify({ watches: [watch] }));
      const listed = await runCliCaptured(
        ['watches', 'list', '--watches', bad, '--destinations', destinations],
        {
          env,
        },
      );
      expect(listed.code, message).not.toBe(0);
      expect(listed.stderr.trim().split('\n'), message).toHaveLength(1);
      expect(listed.stderr, message).toContain(`watches file ${bad}: ${message}`);
    }
  }, 60_000);

  it('runs, lists and shows the changes of a watch over HubSpot contacts', async () => {
    const flags = ['--destinations', destinations, '--json'];
    const dry = await runCliCaptured(['watches', 'run', 'crm-contacts', '--dry-run', ...flags], { env });
    expect(dry.stderr).toBe('');
    expect(JSON.parse(dry.stdout)).toMatchObject({ rows: 2, would_check: 2, invalid: 0 });
    const first = await runCliCaptured(['watches', 'run', 'crm-contacts', ...flags], { env });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ checked: 2, baseline: 2, changes: 0, stopped: null });
    sim.setJobChange({ professional_email: 'bo.chen@acme.com' }, { job_change_status: 'left' });
    const second = await runCliCaptured(['watches', 'run', 'crm-contacts', ...flags], { env });
    expect(JSON.parse(second.stdout)).toMatchObject({ checked: 2, baseline: 0, changes: 1, stopped: null });
    const listed = await runCliCaptured(['watches', 'list', ...flags], { env });
    expect(JSON.parse(listed.stdout).watches[0]).toMatchObject({ name: 'crm-contacts', rows: 2, changes: 1 });
    const changes = await runCliCaptured(['watches', 'changes', 'crm-contacts', ...flags], { env });
    const shown = JSON.parse(changes.stdout).changes.filter(
      (c: { change: string }) => c.change !== 'baseline',
    );
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ change: 'left', custom_fields: { hs_object_id: ids[1] } });
  }, 60_000);

  it('a source the CRM refuses stops the run with stopped: source, naming the watch and the problem', async () => {
    const run = await runCliCaptured(
      ['watches', 'run', 'crm-contacts', '--destinations', destinations, '--json'],
      { env: { ...env, HS_TOKEN: 'pat-na1-revoked', HOOKSYNC_DATABASE_URL: join(dir, 'other.db') } },
    );
    expect(run.code).not.toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ checked: 0, stopped: 'source' });
    expect(run.stderr).toContain(
      'watch \\"crm-contacts\\": its source HubSpot destination \\"crm\\": HubSpot refused the token in HS_TOKEN (401)',
    );
  }, 60_000);
});

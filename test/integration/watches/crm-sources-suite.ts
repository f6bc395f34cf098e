/**
 * Watches over a CRM's contacts, end to end, in-process, on SQLite or Postgres: the simulator as the service,
 * the HubSpot stand-in (`from.hubspot`), the Salesforce stand-in (`from.salesforce`) and the Pipedrive
 * stand-in (`from.pipedrive`) as the CRM. A baseline
 * then a change, contacts added, archived or filtered out between cycles, the record id carried into the
 * change and its outbox event, paging past one page, the request each contact becomes, and a CRM that refuses
 * or cannot be reached stopping the cycle with `stopped: source`.
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDestinations } from '../../../src/destinations/load-destinations.js';
import { parseWatches, type WatchDefinition } from '../../../src/watches/load-watches.js';
import { type CycleSummary, runCycle } from '../../../src/watches/run-cycle.js';
import { dueCycle } from '../../../src/watches/start-watches.js';
import { planForCycle } from '../../../src/watches/watch-plan.js';
import { listChanges } from '../../../src/watches/watch-store.js';
import { countSource, watchedRows } from '../../../src/watches/watched-rows.js';
import { type HubSpotStandIn, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { type PipedriveStandIn, startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { addTemplateFields } from '../../helpers/pipedrive/store.js';
import type { Dialect } from '../../helpers/receiver-harness.js';
import { type SalesforceStandIn, startSalesforceStandIn } from '../../helpers/salesforce/stand-in.js';
import { salesforceEntry, salesforceSecrets } from '../destinations/salesforce-world.js';
import { createWatchHarness, type WatchHarness } from './watch-harness.js';

/** A port nothing listens on: a CRM that cannot be reached. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function defineCrmSourcesSuite(dialect: Dialect): void {
  let h: WatchHarness;
  beforeEach(async () => {
    h = await createWatchHarness(dialect);
  }, 60_000);
  afterEach(async () => {
    await h?.close();
  });

  const cycle = async (watch: WatchDefinition): Promise<CycleSummary> => {
    let next = await dueCycle(h.database.db, watch, h.clock.now());
    if ('waitMs' in next) {
      h.clock.advance(next.waitMs);
      next = await dueCycle(h.database.db, watch, h.clock.now());
    }
    if ('waitMs' in next) throw new Error('no cycle due');
    return runCycle(watch, next.cycle, h.deps(), { spread: true, signal: new AbortController().signal });
  };
  const requests = async (watch: WatchDefinition) => {
    const out: Array<Record<string, unknown>> = [];
    for await (const row of watchedRows(
      watch,
      planForCycle(watch, h.clock.now(), undefined),
      h.database.db,
    )) {
      if ('key' in row) out.push(row.request);
    }
    return out;
  };
  const changeEvents = () =>
    h.database.db
      .selectFrom('outbox_events')
      .innerJoin('watch_changes', 'watch_changes.id', 'outbox_events.change_id')
      .select(['outbox_events.destination', 'watch_changes.change', 'watch_changes.custom_fields'])
      .execute();

  /** The watch `entry` (job-change, every 10s) reading through the one destination `destination`. */
  const crmWatch = async (
    destination: Record<string, unknown>,
    env: Record<string, string>,
    entry: Record<string, unknown>,
  ): Promise<WatchDefinition> => {
    const destinations = await parseDestinations({ destinations: [destination] }, env, 'test destinations');
    const [watch] = await parseWatches(
      { watches: [{ launch: 'job-change', every: '10s', ...entry }] },
      { label: 'test', baseDir: h.dir, nowMs: h.clock.now(), destinations },
    );
    return watch!;
  };

  describe('from.hubspot', () => {
    let hs: HubSpotStandIn;
    beforeEach(async () => {
      hs = await startHubSpotStandIn({ tenSecondly: 10_000 });
    });
    afterEach(async () => {
      await hs?.close();
    });

    const hubspotWatch = (
      entry: Record<string, unknown>,
      destination: Record<string, unknown> = {},
      env: Record<string, string> = { HUBSPOT_TOKEN: hs.token },
    ) =>
      crmWatch(
        {
          name: 'crm',
          type: 'hubspot',
          token: { env: 'HUBSPOT_TOKEN' },
          base_url: hs.url,
          rate: '100/1s',
          ...destination,
        },
        env,
        {
          name: 'crm-contacts',
          from: { hubspot: { destination: 'crm', filter: { lifecyclestage: 'customer' } } },
          ...entry,
        },
      );
    const person = (email: string) => ({ professional_email: email });

    it('maps each contact onto the job-change request and carries its id', async () => {
      const acme = hs.seed('companies', { name: 'Acme', domain: 'acme.com' });
      const other = hs.seed('companies', { name: 'Other', domain: 'other.com' });
      const ann = hs.seed('contacts', {
        email: 'ann.lee@acme.com',
        firstname: 'Ann',
        lastname: 'Lee',
        hs_linkedin_url: 'https://www.linkedin.com/in/ann-lee',
        lifecyclestage: 'customer',
        jobtitle: 'CFO',
      });
      const bo = hs.seed('contacts', { email: 'bo@acme.com', lifecyclestage: 'customer' });
      hs.seed('contacts', { email: 'lead@acme.com', lifecyclestage: 'lead' });
      hs.associatePrimary(ann, other);
      hs.associatePrimary(ann, acme); // the newest primary replaces the older one
      const watch = await hubspotWatch({ carry: { title: 'jobtitle' } });
      expect(await requests(watch)).toEqual([
        {
          professional_email: 'ann.lee@acme.com',
          contact_linkedin: 'https://www.linkedin.com/in/ann-lee',
          contact_full_name: 'Ann Lee',
          company_domain: 'acme.com',
          custom_fields: { title: 'CFO', hs_object_id: ann },
        },
        { professional_email: 'bo@acme.com', custom_fields: { hs_object_id: bo } },
      ]);
      // The watch's own map replaces the source's for that field.
      const mapped = await hubspotWatch({ map: { professional_email: 'work_email' } });
      hs.edit('contacts', bo, { work_email: 'bo.work@acme.com' });
      expect((await requests(mapped)).map((r) => r.professional_email)).toEqual([
        undefined,
        'bo.work@acme.com',
      ]);
      // Search with the filter, paced under its own window; the domains in two calls a page.
      const paths = hs.calls().map((c) => `${c.method} ${c.path}`);
      expect(paths).toContain('POST /crm/v3/objects/contacts/search');
      expect(paths).toContain('POST /crm/v4/associations/contacts/companies/batch/read');
      expect(paths).toContain('POST /crm/v3/objects/companies/batch/read');
    }, 60_000);

    it('takes a baseline, then reports a change with its hs_object_id; contacts come and go between cycles', async () => {
      const acme = hs.seed('companies', { name: 'Acme', domain: 'acme.com' });
      const emails = ['ann.lee@acme.com', 'bo.chen@acme.com', 'cy.diaz@acme.com', 'di.evans@acme.com'];
      const ids = emails.map((email) => hs.seed('contacts', { email, lifecyclestage: 'customer' }));
      for (const id of ids) hs.associatePrimary(id, acme);
      for (const email of emails) h.sim.setJobChange(person(email), { job_change_status: 'no_change' });
      await h.database.db
        .insertInto('destination_kinds')
        .values({ destination: 'movers', kind: 'watch_change' })
        .execute();
      const watch = await hubspotWatch({});
      expect(await cycle(watch)).toMatchObject({
        cycle: 1,
        rows: 4,
        checked: 4,
        baseline: 4,
        changes: 0,
        stopped: null,
      });

      h.sim.setJobChange(person(emails[0]!), {
        job_change_status: 'moved',
        company_domain: 'globex.com',
        company_name: 'Globex',
        title: 'CRO',
      });
      const added = hs.seed('contacts', { email: 'ed.fox@acme.com', lifecyclestage: 'customer' });
      h.sim.setJobChange(person('ed.fox@acme.com'), { job_change_status: 'no_change' });
      hs.archive('contacts', ids[1]!); // deleted in the CRM
      hs.edit('contacts', ids[2]!, { lifecyclestage: 'other' }); // no longer matches the filter
      // Left, but no longer watched: not checked, so not reported.
      h.sim.setJobChange(person(emails[2]!), { job_change_status: 'left' });
      expect(await cycle(watch)).toMatchObject({
        cycle: 2,
        rows: 3,
        checked: 3,
        baseline: 1,
        changes: 1,
        stopped: null,
      });
      const changes = (await listChanges(h.database.db, 'crm-contacts', undefined)).filter(
        (c) => c.change !== 'baseline',
      );
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ change: 'moved' });
      expect(JSON.parse(changes[0]!.custom_fields)).toEqual({ hs_object_id: ids[0] });
      const events = await changeEvents();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ destination: 'movers', change: 'moved' });
      expect(JSON.parse(events[0]!.custom_fields)).toEqual({ hs_object_id: ids[0] });
      expect(added).not.toBe(ids[1]);
    }, 60_000);

    it('reads the CRM once a cycle in serve, counting as it reads; `watches run` once more for contacts added', async () => {
      const emails = ['ann.lee@acme.com', 'bo.chen@acme.com', 'cy.diaz@acme.com'];
      for (const email of emails) {
        hs.seed('contacts', { email, lifecyclestage: 'customer' });
        h.sim.setJobChange(person(email), { job_change_status: 'no_change' });
      }
      const watch = await hubspotWatch({});
      const searches = () => hs.calls().filter((c) => c.path === '/crm/v3/objects/contacts/search').length;
      // The first cycle has no earlier reading to spread its checks by: it counts the contacts, then passes.
      expect(await cycle(watch)).toMatchObject({ cycle: 1, rows: 3, checked: 3, stopped: null });
      expect(searches()).toBe(2);
      // Spread by the rows the last reading held: the pass is the only reading, and its count is the cycle's.
      hs.seed('contacts', { email: 'ed.fox@acme.com', lifecyclestage: 'customer' });
      h.sim.setJobChange(person('ed.fox@acme.com'), { job_change_status: 'no_change' });
      expect(await cycle(watch)).toMatchObject({ cycle: 2, rows: 4, checked: 4, stopped: null });
      expect(searches()).toBe(3);
      // At once (`watches run`): progress expects the rows the last reading held; a second reading finds none left.
      const progress: Array<{ total: number | undefined; read: number }> = [];
      let next = await dueCycle(h.database.db, watch, h.clock.now());
      if ('waitMs' in next) {
        h.clock.advance(next.waitMs);
        next = await dueCycle(h.database.db, watch, h.clock.now());
      }
      if ('waitMs' in next) throw new Error('no cycle due');
      const third = await runCycle(watch, next.cycle, h.deps(), {
        spread: false,
        signal: new AbortController().signal,
        onProgress: ({ total, read }) => progress.push({ total, read }),
      });
      expect(third).toMatchObject({ cycle: 3, rows: 4, checked: 4, stopped: null });
      expect(searches()).toBe(5);
      expect(progress).toHaveLength(4);
      expect(progress.every((p) => p.total === 4 && p.read <= 4)).toBe(true);
    }, 60_000);

    it('keeps what was known of a contact whose e-mail is edited in the CRM (keyed by its id)', async () => {
      const id = hs.seed('contacts', { email: 'ann.lee@acme.com', lifecyclestage: 'customer' });
      h.sim.setJobChange(person('ann.lee@acme.com'), { job_change_status: 'no_change' });
      h.sim.setJobChange(person('ann@acme.com'), { job_change_status: 'no_change' });
      const watch = await hubspotWatch({});
      expect(await cycle(watch)).toMatchObject({ baseline: 1 });
      hs.edit('contacts', id, { email: 'ann@acme.com' });
      expect(await cycle(watch)).toMatchObject({ checked: 1, baseline: 0, changes: 0 });
    }, 60_000);

    it('pages all contacts through the list and a filter through search past one page', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 230; i += 1) {
        ids[i] = hs.seed('contacts', {
          email: `p${i}@example.com`,
          lifecyclestage: i % 10 === 0 ? 'lead' : 'customer',
        });
      }
      const all = await hubspotWatch({ from: { hubspot: { destination: 'crm' } } });
      const customers = await hubspotWatch({});
      const count = (watch: WatchDefinition) =>
        countSource(h.database.db, watch, planForCycle(watch, h.clock.now(), undefined), 1);
      expect(await count(all)).toMatchObject({ valid: 230, invalid: 0, pending: 230 });
      expect(await count(customers)).toMatchObject({ valid: 207, invalid: 0, pending: 207 });
      const lists = hs.calls().filter((c) => c.method === 'GET' && c.path === '/crm/v3/objects/contacts');
      expect(lists.map((c) => new URLSearchParams(c.query).get('after'))).toEqual([null, ids[100], ids[200]]);
      const searches = hs.calls().filter((c) => c.path === '/crm/v3/objects/contacts/search');
      expect(searches).toHaveLength(2);
      expect(searches.every((c) => c.status === 200)).toBe(true);
      // The second page starts after the last id of the first, in id order.
      expect(JSON.stringify(searches[1]!.body)).toContain('"operator":"GT"');
    }, 60_000);

    it('a contact the request cannot be made of is named by its id, not checked', async () => {
      const empty = hs.seed('contacts', { firstname: 'Nobody', lifecyclestage: 'customer' });
      const watch = await hubspotWatch({ map: { contact_full_name: 'lastname' } });
      const count = await countSource(h.database.db, watch, planForCycle(watch, h.clock.now(), undefined), 1);
      expect(count.invalid).toBe(1);
      expect(count.problems[0]).toContain(`contact ${empty}:`);
    }, 60_000);

    it('stops the cycle with stopped: source when HubSpot refuses the token or cannot be reached', async () => {
      hs.seed('contacts', { email: 'ann.lee@acme.com', lifecyclestage: 'customer' });
      const refused = await hubspotWatch({}, {}, { HUBSPOT_TOKEN: 'pat-na1-wrong' });
      expect(await cycle(refused)).toMatchObject({ stopped: 'source', checked: 0, finished: true });
      expect(h.logs.join('')).toContain(
        'watch \\"crm-contacts\\": its source HubSpot destination \\"crm\\": HubSpot refused the token in HUBSPOT_TOKEN (401)',
      );
      const unreachable = await hubspotWatch(
        { name: 'unreachable' },
        { base_url: `http://127.0.0.1:${await closedPort()}` },
      );
      expect(await cycle(unreachable)).toMatchObject({ stopped: 'source', checked: 0 });
      expect(h.logs.join('')).toMatch(
        /watch \\"unreachable\\": its source HubSpot destination \\"crm\\": network error/,
      );
    }, 60_000);
  });

  describe('from.salesforce', () => {
    let sf: SalesforceStandIn;
    beforeEach(async () => {
      sf = await startSalesforceStandIn({ setUp: true });
    });
    afterEach(async () => {
      await sf?.close();
    });

    const salesforceWatch = (entry: Record<string, unknown> = {}) =>
      crmWatch({ name: 'sf', ...salesforceEntry(sf) }, salesforceSecrets(sf), {
        name: 'sf-contacts',
        from: { salesforce: { destination: 'sf', soql_where: "Email LIKE '%@acme.com'" } },
        ...entry,
      });

    it('maps each Contact, takes a baseline, then reports a change with its sf_id; contacts come and go', async () => {
      const acme = sf.seed('Account', { Name: 'Acme', Website: 'https://www.acme.com/' });
      const keyed = sf.seed('Account', {
        Name: 'Keyed',
        Website: 'old.com',
        Hooksync_Company_Id__c: 'keyed.com',
      });
      const ann = sf.seed('Contact', {
        FirstName: 'Ann',
        LastName: 'Lee',
        Email: 'ann.lee@acme.com',
        AccountId: acme,
        LinkedIn_URL__c: 'https://www.linkedin.com/in/ann-lee',
      });
      const bo = sf.seed('Contact', { LastName: 'Chen', Email: 'bo.chen@acme.com', AccountId: keyed });
      const cy = sf.seed('Contact', { LastName: 'Diaz', Email: 'cy.diaz@acme.com' });
      sf.seed('Contact', { LastName: 'Other', Email: 'someone@elsewhere.com' });
      // A field the source reads itself, spelled another way (SOQL is case-insensitive): selected once.
      const watch = await salesforceWatch({ carry: { title: 'Title', mail: 'email' } });
      expect(await requests(watch)).toEqual([
        {
          professional_email: 'ann.lee@acme.com',
          contact_linkedin: 'https://www.linkedin.com/in/ann-lee',
          contact_full_name: 'Ann Lee',
          company_domain: 'acme.com',
          custom_fields: { sf_id: ann, mail: 'ann.lee@acme.com' },
        },
        {
          professional_email: 'bo.chen@acme.com',
          contact_full_name: 'Chen',
          company_domain: 'keyed.com',
          custom_fields: { sf_id: bo, mail: 'bo.chen@acme.com' },
        },
        {
          professional_email: 'cy.diaz@acme.com',
          contact_full_name: 'Diaz',
          custom_fields: { sf_id: cy, mail: 'cy.diaz@acme.com' },
        },
      ]);
      const emails = ['ann.lee@acme.com', 'bo.chen@acme.com', 'cy.diaz@acme.com', 'di.evans@acme.com'];
      // Named as the request names them: Ann by her LinkedIn URL, which the simulator identifies her by.
      const annContact = { contact_linkedin: 'https://www.linkedin.com/in/ann-lee' };
      h.sim.setJobChange(annContact, { job_change_status: 'no_change' });
      for (const email of emails.slice(1))
        h.sim.setJobChange({ professional_email: email }, { job_change_status: 'no_change' });
      await h.database.db
        .insertInto('destination_kinds')
        .values({ destination: 'movers', kind: 'watch_change' })
        .execute();
      expect(await cycle(watch)).toMatchObject({
        rows: 3,
        checked: 3,
        baseline: 3,
        changes: 0,
        stopped: null,
      });

      h.sim.setJobChange(annContact, { job_change_status: 'left' });
      sf.seed('Contact', { LastName: 'Evans', Email: 'di.evans@acme.com' });
      sf.remove('Contact', bo);
      sf.edit('Contact', cy, { Email: 'cy.diaz@elsewhere.com' });
      expect(await cycle(watch)).toMatchObject({
        rows: 2,
        checked: 2,
        baseline: 1,
        changes: 1,
        stopped: null,
      });
      const changes = (await listChanges(h.database.db, 'sf-contacts', undefined)).filter(
        (c) => c.change !== 'baseline',
      );
      const carried = { sf_id: ann, mail: 'ann.lee@acme.com' };
      expect(changes.map((c) => [c.change, JSON.parse(c.custom_fields)])).toEqual([['left', carried]]);
      const events = await changeEvents();
      expect(events).toHaveLength(1);
      expect(JSON.parse(events[0]!.custom_fields)).toEqual(carried);
    }, 60_000);

    it('pages a query past one chunk, keyed on Id, following nextRecordsUrl within each', async () => {
      await sf.close();
      sf = await startSalesforceStandIn({ setUp: true, queryPageSize: 500 });
      for (let i = 0; i < 2_300; i += 1)
        sf.seed('Contact', { LastName: `Person ${i}`, Email: `p${i}@acme.com` });
      const watch = await salesforceWatch();
      const count = await countSource(h.database.db, watch, planForCycle(watch, h.clock.now(), undefined), 1);
      expect(count).toMatchObject({ valid: 2_300, invalid: 0 });
      const queries = sf.calls().filter((c) => c.path.includes('/query'));
      // 2,000 in four pages of 500 (the locator followed at once), then the 300 after the last Id.
      expect(queries.map((c) => (c.path.endsWith('/query') ? 'query' : 'more'))).toEqual([
        'query',
        'more',
        'more',
        'more',
        'query',
      ]);
      expect(queries.every((c) => c.status === 200)).toBe(true);
      expect(decodeURIComponent(queries[4]!.query)).toContain("AND Id > '");
    }, 120_000);

    it('stops the cycle with stopped: source naming what Salesforce said', async () => {
      sf.seed('Contact', { LastName: 'Lee', Email: 'ann.lee@acme.com' });
      const watch = await salesforceWatch({
        from: { salesforce: { destination: 'sf', soql_where: 'No_Such_Field__c = 1' } },
      });
      expect(await cycle(watch)).toMatchObject({ stopped: 'source', checked: 0 });
      expect(h.logs.join('')).toContain(
        'watch \\"sf-contacts\\": its source Salesforce destination \\"sf\\":',
      );
      expect(h.logs.join('')).toContain('No such column');
    }, 60_000);
  });

  describe('from.pipedrive', () => {
    let pd: PipedriveStandIn;
    let keys: { domain: string | undefined; linkedin: string | undefined };
    beforeEach(async () => {
      pd = await startPipedriveStandIn({ burst: 1_000 });
      keys = addTemplateFields(pd.store);
    });
    afterEach(async () => {
      await pd?.close();
    });

    const pipedriveWatch = (
      entry: Record<string, unknown>,
      destination: Record<string, unknown> = {},
      env: Record<string, string> = { PIPEDRIVE_TOKEN: pd.token },
    ) =>
      crmWatch(
        {
          name: 'pd',
          type: 'pipedrive',
          base_url: pd.url,
          token: { env: 'PIPEDRIVE_TOKEN' },
          rate: '100/1s',
          ...destination,
        },
        env,
        { name: 'pd-persons', from: { pipedrive: { destination: 'pd', owner_id: 7 } }, ...entry },
      );
    const person = (email: string) => ({ professional_email: email });
    const org = (name: string, values: Record<string, unknown>) =>
      pd.store.insert('organizations', { name, ...values });
    const personOf = (name: string, email: string | undefined, values: Record<string, unknown> = {}) =>
      pd.store.insert('persons', {
        name,
        emails: email === undefined ? [] : [{ value: email, primary: true, label: 'work' }],
        owner_id: 7,
        ...values,
      });

    it('maps each person onto the job-change request and carries its pd_id; an owner or a saved filter narrows', async () => {
      const acme = org('Acme', { custom_fields: { [keys.domain!]: 'acme.com' } });
      const other = org('Other', { website: 'https://www.other.io/about' });
      const ann = personOf('Ann Lee', 'ann.lee@acme.com', {
        first_name: 'Ann',
        last_name: 'Lee',
        org_id: acme.id,
        custom_fields: { [keys.linkedin!]: 'https://www.linkedin.com/in/ann-lee' },
      });
      const jobTitle = pd.store.field('persons', 'Job title')!.key;
      ann.custom_fields[jobTitle] = 'CFO';
      const bo = personOf('Bo Chen', 'bo@other.io', { org_id: other.id });
      personOf('Someone Else', 'else@acme.com', { owner_id: 8, org_id: acme.id });
      const watch = await pipedriveWatch({ carry: { title: 'Job title' } });
      expect(await requests(watch)).toEqual([
        {
          professional_email: 'ann.lee@acme.com',
          contact_linkedin: 'https://www.linkedin.com/in/ann-lee',
          contact_full_name: 'Ann Lee',
          company_domain: 'acme.com',
          custom_fields: { title: 'CFO', pd_id: String(ann.id) },
        },
        {
          professional_email: 'bo@other.io',
          contact_full_name: 'Bo Chen',
          company_domain: 'other.io',
          custom_fields: { pd_id: String(bo.id) },
        },
      ]);
      const lists = pd.calls.filter((c) => c.method === 'GET' && c.path.startsWith('/api/v2/persons?'));
      expect(new URLSearchParams(lists[0]!.path.split('?')[1]).get('owner_id')).toBe('7');
      // The page's organizations in one call by ids, their key field only.
      expect(pd.calls.filter((c) => c.path.startsWith('/api/v2/organizations?'))).toHaveLength(1);

      const cfos = pd.store.addFilter('persons', (record) => record.custom_fields[jobTitle] === 'CFO');
      const filtered = await pipedriveWatch({ from: { pipedrive: { destination: 'pd', filter_id: cfos } } });
      expect((await requests(filtered)).map((r) => r.professional_email)).toEqual(['ann.lee@acme.com']);
    }, 60_000);

    it('takes a baseline, then reports a change with its pd_id; persons come and go between cycles', async () => {
      const acme = org('Acme', { custom_fields: { [keys.domain!]: 'acme.com' } });
      const emails = ['ann.lee@acme.com', 'bo.chen@acme.com', 'cy.diaz@acme.com'];
      const ids = emails.map((email) => personOf(email, email, { org_id: acme.id }).id);
      for (const email of emails) h.sim.setJobChange(person(email), { job_change_status: 'no_change' });
      await h.database.db
        .insertInto('destination_kinds')
        .values({ destination: 'movers', kind: 'watch_change' })
        .execute();
      const watch = await pipedriveWatch({});
      expect(await cycle(watch)).toMatchObject({ cycle: 1, rows: 3, checked: 3, baseline: 3, stopped: null });

      h.sim.setJobChange(person(emails[0]!), {
        job_change_status: 'moved',
        company_domain: 'globex.com',
        company_name: 'Globex',
        title: 'CRO',
      });
      pd.store.records.persons.get(ids[1]!)!.is_deleted = true;
      personOf('Ed Fox', 'ed.fox@acme.com', { owner_id: 8 }); // another owner's: not watched
      expect(await cycle(watch)).toMatchObject({ cycle: 2, rows: 2, checked: 2, changes: 1, stopped: null });
      const changes = (await listChanges(h.database.db, 'pd-persons', undefined)).filter(
        (c) => c.change !== 'baseline',
      );
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ change: 'moved' });
      expect(JSON.parse(changes[0]!.custom_fields)).toEqual({ pd_id: String(ids[0]) });
      const events = await changeEvents();
      expect(events).toHaveLength(1);
      expect(JSON.parse(events[0]!.custom_fields)).toEqual({ pd_id: String(ids[0]) });
    }, 60_000);

    it('pages with the cursor past one page of 500', async () => {
      for (let i = 0; i < 520; i += 1) personOf(`Person Number${i}`, `p${i}@example.com`);
      const watch = await pipedriveWatch({});
      const count = await countSource(h.database.db, watch, planForCycle(watch, h.clock.now(), undefined), 1);
      expect(count).toMatchObject({ valid: 520, invalid: 0, pending: 520 });
      const lists = pd.calls.filter((c) => c.path.startsWith('/api/v2/persons?'));
      expect(lists.map((c) => new URLSearchParams(c.path.split('?')[1]).get('cursor'))).toEqual([
        null,
        expect.any(String),
      ]);
      expect(lists.every((c) => c.status === 200 && c.tokens === 10)).toBe(true);
    }, 60_000);

    it('refuses a field the account does not have, and stops the cycle with stopped: source when Pipedrive refuses', async () => {
      personOf('Ann Lee', 'ann.lee@acme.com');
      const unknown = await pipedriveWatch({ carry: { x: 'No Such Field' } });
      expect(await cycle(unknown)).toMatchObject({ stopped: 'source', checked: 0 });
      expect(h.logs.join('')).toContain('the account has no person field named \\"No Such Field\\"');
      const refused = await pipedriveWatch({ name: 'refused' }, {}, { PIPEDRIVE_TOKEN: 'wrong' });
      expect(await cycle(refused)).toMatchObject({ stopped: 'source', checked: 0 });
      expect(h.logs.join('')).toContain('watch \\"refused\\": its source Pipedrive destination \\"pd\\":');
    }, 60_000);
  });
}

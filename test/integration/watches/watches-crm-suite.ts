/**
 * A watch's changes reaching the CRM destinations (kind `watch_change`), end to end: the simulator as the
 * service, the watch cycle, the outbox, the dispatcher and the HubSpot, Salesforce and Pipedrive stand-ins,
 * on SQLite or Postgres. A contact who moves is updated in place (title, company, the new company linked
 * as primary), one who leaves gets the status, one who comes back gets the company back; a change whose
 * contact the CRM does not hold creates nothing, fails, and is delivered by a replay once it exists.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../src/destinations/create-dispatcher.js';
import { canDryRun } from '../../../src/destinations/crm/crm-destination.js';
import { dryRunReplay } from '../../../src/destinations/crm/dry-run-replay.js';
import { normalizeLinkedinUrl } from '../../../src/destinations/crm/normalize-keys.js';
import { replayEvents } from '../../../src/destinations/destination-admin.js';
import {
  type ConfiguredDestination,
  parseDestinations,
} from '../../../src/destinations/load-destinations.js';
import type { WatchDefinition } from '../../../src/watches/load-watches.js';
import { runCycle } from '../../../src/watches/run-cycle.js';
import { dueCycle } from '../../../src/watches/start-watches.js';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';
import { type PipedriveStandIn, startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import type { Dialect } from '../../helpers/receiver-harness.js';
import { type SalesforceStandIn, startSalesforceStandIn } from '../../helpers/salesforce/stand-in.js';
import { until } from '../../helpers/until.js';
import { salesforceEntry, salesforceSecrets } from '../destinations/salesforce-world.js';
import { createWatchHarness, type WatchHarness } from './watch-harness.js';

const EMAILS = ['ann.lee@acme.com', 'bo.chen@acme.com', 'cy.diaz@acme.com'];
const contact = (i: number) => ({ professional_email: EMAILS[i]! });
const MOVED_TO_B = {
  job_change_status: 'moved',
  company_domain: 'b.com',
  company_name: 'B',
  title: 'CRO',
} as const;

/** Registers the cases on `dialect`; `crms: 'hubspot'` only HubSpot's (the other dialect's run). */
export function defineWatchesCrmSuite(dialect: Dialect, crms: 'all' | 'hubspot' = 'all'): void {
  let h: WatchHarness;
  let dispatchers: Dispatcher[];
  beforeEach(async () => {
    h = await createWatchHarness(dialect);
    dispatchers = [];
  }, 60_000);
  afterEach(async () => {
    for (const dispatcher of dispatchers) await dispatcher.stop();
    await h?.close();
  });

  const cycle = async (watch: WatchDefinition) => {
    let next = await dueCycle(h.database.db, watch, h.clock.now());
    if ('waitMs' in next) {
      h.clock.advance(next.waitMs);
      next = await dueCycle(h.database.db, watch, h.clock.now());
    }
    if ('waitMs' in next) throw new Error('no cycle due');
    return runCycle(watch, next.cycle, h.deps(), { spread: false, signal: new AbortController().signal });
  };
  /** The file: Email, Domain (the company asked about), Id (the CRM's record id, carried as `carry`). */
  const watchOf = async (carry: string, ids: readonly string[]) => {
    const lines = EMAILS.map((email, i) => `${email},acme.com,${ids[i] ?? ''}`);
    await h.write('contacts.csv', ['Email,Domain,Id', ...lines].join('\n'));
    return h.watch({
      name: 'champions',
      launch: 'job-change',
      from: { file: 'contacts.csv' },
      map: { professional_email: 'Email', company_domain: 'Domain' },
      carry: { [carry]: 'Id' },
    });
  };
  const configure = async (entry: Record<string, unknown>, env: Record<string, string>) => {
    const destinations = await parseDestinations(
      { destinations: [{ name: 'crm', linger: '50ms', kinds: ['watch_change'], ...entry }] },
      env,
      'test',
    );
    return destinations[0]!;
  };
  const start = async (configured: ConfiguredDestination) => {
    const dispatcher = createDispatcher({
      database: h.database,
      destinations: [configured],
      logger: pino({ level: 'silent' }),
      pollMs: 25,
      yieldUtilization: 2,
    });
    // Routing first: the changes found after it have their events.
    await dispatcher.sync();
    dispatcher.start();
    dispatchers.push(dispatcher);
  };
  const events = () =>
    h.database.db
      .selectFrom('outbox_events')
      .select(['status', 'change_id', 'last_error', 'revision'])
      .orderBy('id')
      .execute();
  const settled = async (count: number) => {
    let all: Awaited<ReturnType<typeof events>> = [];
    await until(
      async () => {
        all = await events();
        return all.length >= count && all.every((event) => event.status !== 'pending');
      },
      { message: `${count} events are settled` },
    ).catch((error: unknown) => {
      throw new Error(`events not settled: ${JSON.stringify(all)}`, { cause: error });
    });
    return all;
  };
  /** Baseline: everyone where the file says. */
  const baseline = async (watch: WatchDefinition) => {
    for (let i = 0; i < EMAILS.length; i += 1)
      h.sim.setJobChange(contact(i), { job_change_status: 'no_change' });
    expect(await cycle(watch)).toMatchObject({ checked: 3, baseline: 3, changes: 0 });
  };

  describe('hubspot', () => {
    let hs: HubSpotStandIn;
    beforeEach(async () => {
      hs = await startHubSpotStandIn();
      defineSetUpProperties(hs);
    });
    afterEach(async () => {
      await hs.close();
    });
    const hubspot = () =>
      configure(
        { type: 'hubspot', token: { env: 'HUBSPOT_TOKEN' }, base_url: hs.url },
        { HUBSPOT_TOKEN: hs.token },
      );

    it('HubSpot: moved updates the carried contact in place (title, company, new company primary), left the status; an absent contact is never created, and a replay delivers it once it exists', async () => {
      const ann = hs.seed('contacts', { email: EMAILS[0]!, jobtitle: 'AE', company: 'Acme' });
      const bo = hs.seed('contacts', { email: EMAILS[1]!, jobtitle: 'SDR', company: 'Acme' });
      // cy.diaz is in the file without an id, and HubSpot does not hold her.
      const watch = await watchOf('hs_object_id', [ann, bo]);
      const configured = await hubspot();
      await start(configured);
      await baseline(watch);
      expect(await events()).toEqual([]);

      h.sim.setJobChange(contact(0), MOVED_TO_B);
      h.sim.setJobChange(contact(1), { job_change_status: 'left' });
      h.sim.setJobChange(contact(2), { ...MOVED_TO_B, title: 'VP' });
      expect(await cycle(watch)).toMatchObject({ changes: 3 });
      const all = await settled(3);
      expect(all.map((event) => event.revision)).toEqual([0, 0, 0]);
      expect(all.filter((event) => event.status === 'delivered')).toHaveLength(2);
      const failed = all.find((event) => event.status === 'failed')!;
      expect(failed.last_error).toContain('HubSpot holds no record for it');
      expect(failed.last_error).toContain('never creates one');

      // Updated in place, under fill-empty: a move's title and company overwrite.
      expect(
        hs
          .records('contacts')
          .map((record) => record.id)
          .sort(),
      ).toEqual([ann, bo].sort());
      const annNow = hs.records('contacts').find((record) => record.id === ann)!;
      expect(annNow.properties).toMatchObject({
        jobtitle: 'CRO',
        company: 'B',
        hooksync_job_change_status: 'moved',
      });
      const b = hs.findBy('companies', 'hooksync_domain', 'b.com')!;
      expect(hs.associations()).toContainEqual({ contactId: ann, companyId: b.id, typeId: 1 });
      const boNow = hs.records('contacts').find((record) => record.id === bo)!;
      expect(boNow.properties).toMatchObject({ jobtitle: 'SDR', hooksync_job_change_status: 'left' });
      expect(hs.associations().some((link) => link.contactId === bo)).toBe(false);

      // The dry run shows the failing change; once the contact exists, it shows the update.
      const destination = configured.create({
        database: h.database,
        logger: pino({ level: 'silent' }),
        now: Date.now,
        fetch: globalThis.fetch,
      });
      if (!canDryRun(destination)) throw new Error('a CRM destination dry-runs');
      const plan = () =>
        dryRunReplay({
          database: h.database,
          destination,
          name: 'crm',
          selection: { failed: true },
          signal: AbortSignal.timeout(30_000),
        });
      const before = await plan();
      expect(before.records).toContainEqual(
        expect.objectContaining({ object: 'contacts', key: EMAILS[2], action: 'failed' }),
      );
      expect(before.failed).toHaveLength(1);
      const cy = hs.seed('contacts', { email: EMAILS[2]!, jobtitle: 'Manager' });
      const after = await plan();
      expect(after.failed).toEqual([]);
      expect(after.records).toContainEqual(
        expect.objectContaining({
          object: 'contacts',
          key: EMAILS[2],
          action: 'update',
          changes: expect.arrayContaining([{ property: 'jobtitle', from: 'Manager', to: 'VP' }]),
        }),
      );
      expect(hs.records('contacts').find((record) => record.id === cy)!.properties.jobtitle).toBe('Manager');

      expect(await replayEvents(h.database.db, 'crm', { failed: true }, new Date().toISOString())).toBe(1);
      expect((await settled(3)).map((event) => event.status)).toEqual([
        'delivered',
        'delivered',
        'delivered',
      ]);
      expect(hs.records('contacts')).toHaveLength(3);
      expect(hs.records('contacts').find((record) => record.id === cy)!.properties).toMatchObject({
        jobtitle: 'VP',
        hooksync_job_change_status: 'moved',
      });

      // Back at the company asked about: the company back as primary, the status current.
      h.sim.setJobChange(contact(0), { job_change_status: 'no_change' });
      expect(await cycle(watch)).toMatchObject({ changes: 1 });
      await settled(4);
      expect(hs.records('contacts')).toHaveLength(3);
      expect(hs.records('contacts').find((record) => record.id === ann)!.properties).toMatchObject({
        hooksync_job_change_status: 'no_change',
      });
      const acme = hs.findBy('companies', 'hooksync_domain', 'acme.com')!;
      expect(hs.associations()).toContainEqual({ contactId: ann, companyId: acme.id, typeId: 1 });
    }, 90_000);
    it('HubSpot: the new persons of a search watch are written like search results: created once by key, never twice', async () => {
      await h.write('accounts.csv', ['Domain,Record ID', 'acme.com,A1'].join('\n'));
      const watch = await h.watch({
        name: 'new-vps',
        launch: 'search',
        from: { file: 'accounts.csv' },
        map: { domain: 'Domain' },
        set: { page_size: 5 },
        // A carried id names the account, never a person: a search's persons do not take it.
        carry: { hs_object_id: 'Record ID' },
        report_baseline: true,
      });
      await start(await hubspot());
      const first = await cycle(watch);
      expect(first.changes).toBeGreaterThan(0);
      const changes = await h.database.db.selectFrom('watch_changes').select('after').execute();
      const urls = new Set(
        changes.flatMap(({ after }) => {
          const url = normalizeLinkedinUrl((JSON.parse(after) as { linkedin_url?: string }).linkedin_url);
          return url === undefined ? [] : [url];
        }),
      );
      expect(urls.size).toBeGreaterThan(0);
      await settled(first.changes);
      const keyed = () =>
        hs
          .records('contacts')
          .map((record) => record.properties.hooksync_linkedin_url)
          .sort();
      expect(keyed()).toEqual([...urls].sort());
      // The same persons again are no change; every event replayed writes them again, never twice.
      expect(await cycle(watch)).toMatchObject({ changes: 0 });
      expect(await replayEvents(h.database.db, 'crm', {}, new Date().toISOString())).toBe(first.changes);
      expect((await settled(first.changes)).every((event) => event.status === 'delivered')).toBe(true);
      expect(keyed()).toEqual([...urls].sort());
    }, 90_000);
  });

  if (crms === 'hubspot') return;

  describe('salesforce', () => {
    let sf: SalesforceStandIn;
    beforeEach(async () => {
      sf = await startSalesforceStandIn({ setUp: true });
    });
    afterEach(async () => {
      await sf.close();
    });

    it('Salesforce: moved updates the Contact the watch carries (sf_id) under its new Account, returned puts it back under the old; an absent one is never created', async () => {
      const ann = sf.seed('Contact', { LastName: 'Lee', Email: EMAILS[0]!, Title: 'AE' });
      const accountB = sf.seed('Account', { Name: 'B', Hooksync_Company_Id__c: 'b.com' });
      const watch = await watchOf('sf_id', [ann]);
      await start(await configure(salesforceEntry(sf), salesforceSecrets(sf)));
      await baseline(watch);
      h.sim.setJobChange(contact(0), MOVED_TO_B);
      h.sim.setJobChange(contact(2), MOVED_TO_B);
      expect(await cycle(watch)).toMatchObject({ changes: 2 });
      const all = await settled(2);
      expect(all.map((event) => event.status).sort()).toEqual(['delivered', 'failed']);
      expect(all.find((event) => event.status === 'failed')!.last_error).toContain(
        'Salesforce holds no record for it',
      );
      expect(sf.records('Contact').map((record) => record.Id)).toEqual([ann]);
      expect(sf.records('Lead')).toEqual([]);
      expect(sf.records('Contact')[0]).toMatchObject({
        Title: 'CRO',
        Current_Company__c: 'B',
        Job_Change_Status__c: 'moved',
        AccountId: accountB,
      });

      // Back at the company asked about: a check that says so names no person, so no person key; the
      // carried Id alone finds the Contact, which gets its Account back and the status.
      const acme = sf.seed('Account', { Name: 'Acme', Hooksync_Company_Id__c: 'acme.com' });
      h.sim.setJobChange(contact(0), { job_change_status: 'no_change' });
      expect(await cycle(watch)).toMatchObject({ changes: 1 });
      expect((await settled(3)).filter((event) => event.status === 'delivered')).toHaveLength(2);
      expect(sf.records('Contact').map((record) => record.Id)).toEqual([ann]);
      expect(sf.records('Contact')[0]).toMatchObject({
        Job_Change_Status__c: 'no_change',
        AccountId: acme,
        Title: 'CRO',
      });
    }, 90_000);
  });

  describe('pipedrive', () => {
    let pd: PipedriveStandIn;
    beforeEach(async () => {
      pd = await startPipedriveStandIn({ indexLagMs: 0, burst: 1_000, searchBurst: 1_000 });
    });
    afterEach(async () => {
      await pd.close();
    });

    it('Pipedrive: moved re-links the person the watch carries (pd_id) to the new organization, left records the status; nothing is created', async () => {
      const domain = pd.store.addField('organizations', 'Domain', 'varchar');
      pd.store.addField('organizations', 'Hooksync ID', 'varchar');
      pd.store.addField('persons', 'LinkedIn URL', 'varchar');
      for (const name of ['Hooksync ID', 'Job title', 'Previous organization', 'Previous job title'])
        pd.store.addField('persons', name, 'varchar');
      const status = pd.store.addField('persons', 'Job change status', 'varchar');
      const acme = pd.store.insert('organizations', {
        name: 'Acme',
        custom_fields: { [domain.key]: 'acme.com' },
      });
      const ann = pd.store.insert('persons', { name: 'Ann Lee', org_id: acme.id });
      const bo = pd.store.insert('persons', { name: 'Bo Chen', org_id: acme.id });
      pd.store.settleIndex();
      const watch = await watchOf('pd_id', [String(ann.id), String(bo.id)]);
      await start(
        await configure(
          { type: 'pipedrive', token: { env: 'PIPEDRIVE_TOKEN' }, base_url: pd.url },
          { PIPEDRIVE_TOKEN: pd.token },
        ),
      );
      await baseline(watch);
      h.sim.setJobChange(contact(0), MOVED_TO_B);
      h.sim.setJobChange(contact(1), { job_change_status: 'left' });
      h.sim.setJobChange(contact(2), { job_change_status: 'left' });
      expect(await cycle(watch)).toMatchObject({ changes: 3 });
      const all = await settled(3);
      expect(all.map((event) => event.status).sort()).toEqual(['delivered', 'delivered', 'failed']);
      const persons = pd.store.live('persons');
      expect(persons.map((person) => person.id).sort()).toEqual([ann.id, bo.id].sort());
      const b = pd.store.live('organizations').find((org) => org.custom_fields[domain.key] === 'b.com')!;
      expect(persons.find((person) => person.id === ann.id)!.org_id).toBe(b.id);
      expect(persons.find((person) => person.id === bo.id)!.org_id).toBe(acme.id);
      expect(persons.find((person) => person.id === bo.id)!.custom_fields[status.key]).toBe('left');
    }, 90_000);
  });
}

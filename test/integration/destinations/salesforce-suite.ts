/**
 * The salesforce destination end to end, against the Salesforce stand-in (real HTTP on port 0) and a real
 * database (SQLite file or Postgres): reveals, searches and job changes written as Accounts, Contacts and
 * Leads by key without duplicates, Contacts under their Accounts, fill-empty vs overwrite, a record refused
 * failing only its event, a session renewed once mid-run, locks retried, and the allocation pause.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CrmDestination } from '../../../src/destinations/crm/crm-destination.js';
import { dryRunReplay } from '../../../src/destinations/crm/dry-run-replay.js';
import { listDestinationStates } from '../../../src/destinations/destination-admin.js';
import type { ConfiguredDestination } from '../../../src/destinations/load-destinations.js';
import { syncDestinations } from '../../../src/destinations/outbox.js';
import { type SalesforceStandIn, startSalesforceStandIn } from '../../helpers/salesforce/stand-in.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';

/** Registers the Salesforce cases on `provision`'s dialect. */
export function defineSalesforceSuite(provision: Provision): void {
  let world: DestinationsWorld;
  let sf: SalesforceStandIn;

  beforeEach(async () => {
    world = await openWorld(provision);
    sf = await startSalesforceStandIn({ setUp: true });
  });
  afterEach(async () => {
    await world.close();
    await sf.close();
  });

  const configure = async (extra: Record<string, unknown> = {}) => {
    const [configured] = await world.configure(
      {
        destinations: [
          {
            name: 'sf',
            type: 'salesforce',
            login_url: sf.url,
            auth: {
              grant: 'client_credentials',
              client_id: { env: 'SF_CLIENT_ID' },
              client_secret: { env: 'SF_CLIENT_SECRET' },
            },
            linger: '50ms',
            retry: { schedule: ['100ms'] },
            ...extra,
          },
        ],
      },
      { SF_CLIENT_ID: sf.clientId, SF_CLIENT_SECRET: sf.clientSecret },
    );
    await syncDestinations(world.database.db, [configured!], new Date().toISOString());
    return configured!;
  };
  const events = () => world.database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute();
  const settled = async () => (await events()).every((e) => e.status !== 'pending');
  const deliverAll = async (configured: ConfiguredDestination) => {
    await world.dispatcher([configured]);
    await until('every event is delivered or failed', settled, 20_000);
  };

  it('writes reveals, searches and job changes as Accounts, Contacts and Leads by key, without duplicates', async () => {
    const configured = await configure();
    await world.storeFixture('company-reveal');
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await world.storeFixture('search-contact');
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(Array(5).fill('delivered'));
    const accounts = sf.records('Account');
    expect(accounts.map((a) => a.Hooksync_Company_Id__c)).toEqual(['acme-robotics.com']);
    const contacts = sf.records('Contact');
    const leads = sf.records('Lead');
    // Persons of a company the org holds are Contacts under it; the mover's new employer is not held: a Lead.
    expect(contacts.length).toBeGreaterThan(0);
    for (const contact of contacts) expect(contact.AccountId).toBe(accounts[0]!.Id);
    expect(leads.length).toBeGreaterThan(0);
    for (const lead of leads) expect(typeof lead.Company).toBe('string');
    const keys = [...contacts, ...leads].map((r) => String(r.Hooksync_Person_Id__c));
    expect(new Set(keys).size).toBe(keys.length);
    for (const call of sf.calls().filter((c) => c.path.includes('/composite/sobjects/'))) {
      const records = (call.body as { records: Array<Record<string, unknown>> }).records;
      expect(records.length).toBeLessThanOrEqual(200);
    }
    expect(Math.max(...sf.calls().map((c) => c.uriLength))).toBeLessThanOrEqual(2_000);
    const states = await listDestinationStates(world.database.db, Date.now());
    expect(states[0]!.counters).toMatchObject({ companies_created: 1 });
    expect(states[0]!.counters.api_calls).toBeGreaterThan(0);
    expect(states[0]!.counters.daily_remaining).toBe(15_000 - sf.usage().used);
  });

  it('fill-empty keeps what a rep typed and fills the rest; overwrite replaces it', async () => {
    const typed = sf.seed('Account', { Name: 'Typed by a rep', Hooksync_Company_Id__c: 'acme-robotics.com' });
    const configured = await configure();
    await world.storeFixture('company-reveal');
    await deliverAll(configured);
    const kept = sf.findBy('Account', 'Hooksync_Company_Id__c', 'acme-robotics.com');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ Id: typed, Name: 'Typed by a rep' });
    expect(kept[0]!.Website).not.toBeNull();
    await world.close();
    world = await openWorld(provision);
    const overwrite = await configure({ write: 'overwrite' });
    await world.storeFixture('company-reveal');
    await deliverAll(overwrite);
    expect(sf.findBy('Account', 'Hooksync_Company_Id__c', 'acme-robotics.com')[0]!.Name).not.toBe(
      'Typed by a rep',
    );
    expect(sf.records('Account')).toHaveLength(1);
  });

  it('fails only the event whose record Salesforce refuses, with its message', async () => {
    sf.addValidationRule({
      object: 'Account',
      check: (v) => (v.Name !== null ? 'Accounts are entered by hand' : undefined),
    });
    const configured = await configure({ new_persons: 'lead' });
    await world.storeFixture('company-reveal');
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    const [reveal, move] = await events();
    expect(reveal!.status).toBe('failed');
    expect(reveal!.last_error).toContain('FIELD_CUSTOM_VALIDATION_EXCEPTION: Accounts are entered by hand');
    expect(move!.status).toBe('delivered');
    expect(sf.records('Lead')).toHaveLength(1);
  });

  it('renews the session once when it expires mid-run, and retries locked records', async () => {
    const configured = await configure({ new_persons: 'lead' });
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    expect(sf.grants()).toBe(1);
    sf.expireSessions();
    sf.failRecords({ object: 'Account', times: 1 });
    await world.storeFixture('company-reveal');
    await until(
      'the reveal is delivered',
      async () => (await events()).every((e) => e.status === 'delivered'),
      20_000,
    );
    expect(sf.grants()).toBe(2);
    expect(sf.calls().filter((c) => c.status === 401)).toHaveLength(1);
    const writes = sf
      .calls()
      .filter((c) => c.path.endsWith('/composite/sobjects/Account/Hooksync_Company_Id__c'));
    expect(JSON.stringify(writes[0]!.response)).toContain('UNABLE_TO_LOCK_ROW');
    expect(writes).toHaveLength(2);
    expect(sf.records('Account')).toHaveLength(1);
  });

  it('waits when the org nears max_share of its allocation, and delivers once the window frees calls', async () => {
    const configured = await configure({ max_share: 0.5 });
    sf.setOtherUsage(7_499);
    await world.storeFixture('company-reveal');
    await world.dispatcher([configured]);
    await until(
      'the destination is held back',
      async () => (await events())[0]!.last_error?.includes('max_share') === true,
      20_000,
    );
    expect((await events())[0]!.status).toBe('pending');
    expect(sf.records('Account')).toHaveLength(0);
  });

  it('dry-runs a replay: reads only, and says per record create or update, field by field, with the calls', async () => {
    const configured = await configure();
    sf.seed('Account', { Name: 'Typed by a rep', Hooksync_Company_Id__c: 'acme-robotics.com' });
    await world.storeFixture('company-reveal');
    await world.storeFixture('job-change-moved');
    await world.database.db.updateTable('outbox_events').set({ status: 'failed' }).execute();
    const before = sf.records('Account').map((r) => ({ ...r }));
    const callsBefore = sf.calls().length;
    const destination = configured.create({
      database: world.database,
      logger: world.logs.logger,
      now: Date.now,
      fetch: globalThis.fetch,
    });
    const report = await dryRunReplay({
      database: world.database,
      destination: destination as CrmDestination,
      name: 'sf',
      selection: { failed: true },
      signal: AbortSignal.timeout(30_000),
    });
    expect(sf.records('Account')).toEqual(before);
    expect(sf.records('Lead')).toEqual([]);
    // The grant aside, only reads: describe, SOQL.
    const made = sf
      .calls()
      .slice(callsBefore)
      .filter((call) => call.path.startsWith('/services/data/'));
    expect(made.length).toBeGreaterThan(0);
    expect(made.every((call) => call.method === 'GET')).toBe(true);
    const acme = report.records.find((r) => r.key === 'acme-robotics.com')!;
    expect(acme.action).toBe('update');
    expect(acme.changes.map((c) => c.property)).not.toContain('Name');
    expect(acme.changes.map((c) => c.property)).toContain('Website');
    expect(report.records.filter((r) => r.object === 'contacts').map((r) => r.action)).toEqual(['create']);
    expect(report.calls).toBeGreaterThanOrEqual(2);
  });
}

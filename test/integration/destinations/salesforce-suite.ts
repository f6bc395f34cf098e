/**
 * The salesforce destination end to end, against the Salesforce stand-in (real HTTP on port 0) and a real
 * database (SQLite file or Postgres): reveals, searches and job changes written as Accounts, Contacts and
 * Leads by key without duplicates, Contacts under their Accounts, fill-empty vs overwrite, a record refused
 * failing only its event, a session renewed once mid-run, locks retried on the destination's schedule (a fake
 * clock), the allocation pause, 200-record calls, a Bulk job above the threshold, `left`, and setup's checks,
 * allocation and adoption.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type CrmDestination, setupOf } from '../../../src/destinations/crm/crm-destination.js';
import { dryRunReplay } from '../../../src/destinations/crm/dry-run-replay.js';
import { listDestinationStates } from '../../../src/destinations/destination-admin.js';
import { describeCounters } from '../../../src/destinations/destination-counters.js';
import type { ConfiguredDestination } from '../../../src/destinations/load-destinations.js';
import { syncDestinations } from '../../../src/destinations/outbox.js';
import { renderDestinations } from '../../../src/server/status-page/render-destinations.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type SalesforceStandIn, startSalesforceStandIn } from '../../helpers/salesforce/stand-in.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';
import { salesforceEntry, salesforceSecrets } from './salesforce-world.js';

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
            ...salesforceEntry(sf, { linger: '50ms', retry: { schedule: ['100ms'] }, ...extra }),
          },
        ],
      },
      salesforceSecrets(sf),
    );
    await syncDestinations(world.database.db, [configured!], new Date().toISOString());
    return configured!;
  };
  const events = () => world.database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute();
  const createFor = (configured: ConfiguredDestination) =>
    configured.create({
      database: world.database,
      logger: world.logs.logger,
      now: Date.now,
      fetch: globalThis.fetch,
    });
  /** Every stored job normalized (its rows written), so that one claim sees them all. */
  const normalized = () =>
    until('every job is normalized', async () => {
      const queued = await world.database.db.selectFrom('normalization_queue').select('job_id').execute();
      return queued.length === 0;
    });
  const storeReveals = async (count: number) => {
    for (let index = 0; index < count; index += 1)
      await world.store.store({
        envelopeText: envelopeText('company-reveal').text.replaceAll(
          'acme-robotics.com',
          `acme-${index}.com`,
        ),
        source: 'webhook',
      });
    await normalized();
  };
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
    // The same counters on /metrics, the status page and `destinations list` (one description of them).
    const metrics = await world.registry.metrics();
    expect(metrics).toContain('hooksync_destination_counter{destination="sf",counter="companies_created"} 1');
    expect(metrics).toMatch(/hooksync_destination_counter\{destination="sf",counter="api_calls"\} [1-9]/);
    expect(metrics).toContain(
      `hooksync_destination_counter{destination="sf",counter="daily_remaining"} ${15_000 - sf.usage().used}`,
    );
    const page = String(renderDestinations(states));
    expect(page).toContain(describeCounters(states[0]!.counters));
    expect(describeCounters(states[0]!.counters)).toMatch(/\d+ API calls; daily allowance left \d+/);
  });

  it('fill-empty reads each person once: the write goes where that read found it (a Contact or a Lead), never reads again', async () => {
    const configured = await configure();
    await world.storeFixture('search-contact');
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(['delivered']);
    const byKey = (object: string) =>
      sf
        .calls()
        .filter(
          (c) =>
            c.path.endsWith('/query') &&
            decodeURIComponent(c.query.replaceAll('+', ' ')).includes(
              `FROM ${object} WHERE Hooksync_Person_Id__c IN`,
            ),
        ).length;
    // One SOQL read of the persons' keys (Contacts, then the rest among Leads); before, the write read them again.
    expect({ contacts: byKey('Contact'), leads: byKey('Lead') }).toEqual({ contacts: 1, leads: 1 });
  });

  it.each([
    ['custom_fields.sf_id', {}, 'sf_id'],
    ['the key id_field names', { id_field: 'crm_id' }, 'crm_id'],
  ])(
    'updates the very Contact a job carries (%s) by its Id, stamps the key, creates no Contact, and moves it to its new Account',
    async (_what, extra, key) => {
      const carried = sf.seed('Contact', {
        LastName: 'Keller',
        FirstName: 'Maria',
        Email: 'm.keller@old-address.example',
        LinkedIn_URL__c: 'https://www.linkedin.com/in/someone-else',
      });
      // A Contact the mover would match by e-mail or LinkedIn, were the carried Id not the strongest key.
      const other = sf.seed('Contact', {
        LastName: 'Other',
        Email: 'maria.keller@globex.com',
        LinkedIn_URL__c: 'https://www.linkedin.com/in/maria-keller-4b1a2',
      });
      const configured = await configure(extra);
      const text = envelopeText('job-change-moved').text.replace(
        '"hubspot_contact_id": "951203"',
        `"${key}": "${carried}"`,
      );
      expect(text).toContain(carried);
      await world.store.store({ envelopeText: text, source: 'webhook' });
      await deliverAll(configured);
      const [event] = await events();
      expect([event!.status, event!.last_error]).toEqual(['delivered', null]);
      expect(sf.records('Contact').map((record) => record.Id)).toEqual([carried, other]);
      expect(sf.records('Lead')).toEqual([]);
      // A mover lands at the new company: its Account is created once and the Contact moved to it.
      expect(sf.records('Account').map((account) => account.Hooksync_Company_Id__c)).toEqual(['initech.io']);
      const updated = sf.records('Contact')[0]!;
      expect(updated).toMatchObject({
        Id: carried,
        AccountId: sf.records('Account')[0]!.Id,
        Hooksync_Person_Id__c: '9c4f5e6d-7a81-4293-b1d4-2e1f0a9b8c73',
        Job_Change_Status__c: 'moved',
        Email: 'm.keller@old-address.example',
        LinkedIn_URL__c: 'https://www.linkedin.com/in/someone-else',
      });
      expect(sf.records('Contact')[1]).toMatchObject({ Id: other, LastName: 'Other' });
      expect(sf.records('Contact')[1]!.Hooksync_Person_Id__c ?? null).toBeNull();
      // Updated by Id, never upserted by key: no write went to the external id path.
      const writes = sf.calls().filter((c) => c.path.includes('/composite/sobjects'));
      expect(writes.length).toBeGreaterThan(0);
      for (const call of writes) expect(call.path).not.toContain('/composite/sobjects/Contact/');
    },
  );

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

  it('writes 450 reveals in collections calls of at most 200 records, each once', async () => {
    const configured = await configure({ write: 'overwrite' });
    await storeReveals(450);
    await deliverAll(configured);
    expect((await events()).every((e) => e.status === 'delivered')).toBe(true);
    const sizes = sf
      .calls()
      .filter((c) => c.path.endsWith('/composite/sobjects/Account/Hooksync_Company_Id__c'))
      .map((c) => (c.body as { records: unknown[] }).records.length);
    expect(Math.max(...sizes)).toBe(200);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(450);
    const keys = sf.records('Account').map((a) => a.Hooksync_Company_Id__c);
    expect(keys).toHaveLength(450);
    expect(new Set(keys).size).toBe(450);
    expect(sf.bulkJobs()).toEqual([]);
  });

  it.each(['overwrite', 'fill-empty'])(
    'writes a batch in calls one after another, the next prepared meanwhile (%s): a failed call loses and duplicates nothing',
    async (write) => {
      const configured = await configure({ write });
      await storeReveals(450);
      // The second collections call answers malformed (a failed attempt) while the third is being prepared.
      const upserts = () =>
        sf.calls().filter((c) => c.path.endsWith('/composite/sobjects/Account/Hooksync_Company_Id__c'));
      sf.failNext({
        status: 200,
        body: { not: 'a result array' },
        match: { method: 'PATCH', pathIncludes: '/composite/sobjects/Account/' },
        skip: 1,
      });
      await world.dispatcher([configured]);
      await until('every event is delivered', async () =>
        (await events()).every((e) => e.status === 'delivered'),
      );
      const all = await events();
      // The segment written before the failure was delivered at the first attempt; the others at the second.
      expect(all.filter((e) => e.attempts === 1)).toHaveLength(200);
      expect(all.filter((e) => e.attempts === 2)).toHaveLength(250);
      expect(all.find((e) => e.attempts === 2)!.last_error).toBeNull();
      const sizes = upserts().map((c) => (c.body as { records: unknown[] }).records.length);
      expect(Math.max(...sizes)).toBe(200);
      // Every key sent once by the answered calls, and once more by the failed one (upserted again, no copy).
      const answered = upserts().filter((c) => Array.isArray(c.response));
      expect(
        answered.map((c) => (c.body as { records: unknown[] }).records.length).reduce((a, b) => a + b, 0),
      ).toBe(450);
      const keys = sf.records('Account').map((a) => a.Hooksync_Company_Id__c);
      expect(keys).toHaveLength(450);
      expect(new Set(keys).size).toBe(450);
      // One write call in flight at a time: each arrived once the one before was answered.
      const writes = sf.calls().filter((c) => c.path.includes('/composite/sobjects'));
      for (const [at, call] of writes.entries())
        if (at > 0) expect(call.at).toBeGreaterThanOrEqual(writes[at - 1]!.answeredAt);
    },
  );

  it('records the events of a written segment delivered while the later segments of the attempt are written', async () => {
    const configured = await configure({ write: 'overwrite' });
    await storeReveals(450);
    // The second collections call waits until the test lets it go: the attempt cannot end before.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let upserts = 0;
    const fetch: typeof globalThis.fetch = async (input, init) => {
      if (String(input).includes('/composite/sobjects/') && ++upserts === 2) await held;
      return globalThis.fetch(input, init);
    };
    await world.dispatcher([configured], { fetch });
    await until(
      "the first segment's events are delivered",
      async () => (await events()).filter((e) => e.status === 'delivered').length === 200,
    );
    expect(sf.records('Account')).toHaveLength(200);
    expect((await events()).filter((e) => e.status === 'pending')).toHaveLength(250);
    // Their Accounts' ids were kept first: a restart now would find them by the map.
    const kept = await world.database.db
      .selectFrom('crm_record_ids')
      .select('record_id')
      .where('destination', '=', 'sf')
      .execute();
    expect(kept).toHaveLength(200);
    release();
    await until('every event is delivered', async () =>
      (await events()).every((e) => e.status === 'delivered'),
    );
    expect((await events()).every((e) => e.attempts === 1)).toBe(true);
    expect(sf.records('Account')).toHaveLength(450);
  });

  it('finds an Account the segment before wrote: a mover to a company revealed just before becomes a Contact under it', async () => {
    const configured = await configure();
    await storeReveals(199);
    // The 200th reveal is the mover's new employer; the job change is the first event of the next segment.
    await world.store.store({
      envelopeText: envelopeText('company-reveal').text.replaceAll('acme-robotics.com', 'initech.io'),
      source: 'webhook',
    });
    await world.storeFixture('job-change-moved');
    await normalized();
    // Slow writes: the second segment's reads would go while the first one's Accounts are in flight.
    sf.setLatency(150);
    await deliverAll(configured);
    expect((await events()).every((e) => e.status === 'delivered')).toBe(true);
    const [initech] = sf.findBy('Account', 'Hooksync_Company_Id__c', 'initech.io');
    expect(sf.records('Lead')).toEqual([]);
    expect(sf.records('Contact')).toHaveLength(1);
    expect(sf.records('Contact')[0]!.AccountId).toBe(initech!.Id);
  });

  it('writes a batch above bulk_threshold in one Bulk API 2.0 job, results matched by key', async () => {
    const configured = await configure({ write: 'overwrite', bulk_threshold: 60 });
    sf.addValidationRule({
      object: 'Account',
      check: (v) => (v.Hooksync_Company_Id__c === 'acme-7.com' ? 'Not this one' : undefined),
    });
    await storeReveals(100);
    await deliverAll(configured);
    const all = await events();
    expect(all.filter((e) => e.status === 'delivered')).toHaveLength(99);
    const failed = all.filter((e) => e.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.last_error).toContain('FIELD_CUSTOM_VALIDATION_EXCEPTION');
    expect(failed[0]!.last_error).toContain('acme-7.com');
    expect(sf.bulkJobs()).toHaveLength(1);
    expect(sf.bulkJobs()[0]).toMatchObject({
      object: 'Account',
      state: 'JobComplete',
      numberRecordsProcessed: 100,
    });
    expect(sf.calls().filter((c) => c.path.includes('/composite/sobjects/Account'))).toEqual([]);
    expect(sf.records('Account')).toHaveLength(99);
    expect(await world.database.db.selectFrom('salesforce_bulk_jobs').selectAll().execute()).toEqual([]);
  });

  it('retries a locked record on the destination schedule, on its clock, without waiting inside the attempt', async () => {
    const configured = await configure({ retry: { schedule: ['10m'] } });
    sf.failRecords({ object: 'Account', times: 1 });
    await world.storeFixture('company-reveal');
    await normalized();
    // The lane's clock, from after the event was stored (it is due), moved by hand.
    let t = Date.now();
    await world.dispatcher([configured], { now: () => t });
    await until(
      'the lock sent the event back to the schedule',
      async () => (await events())[0]!.attempts === 1,
    );
    const [waiting] = await events();
    expect(waiting!.status).toBe('pending');
    expect(waiting!.last_error).toContain('UNABLE_TO_LOCK_ROW');
    expect(Date.parse(waiting!.next_attempt_at) - t).toBeGreaterThanOrEqual(5 * 60_000);
    expect(sf.records('Account')).toEqual([]);
    t = Date.parse(waiting!.next_attempt_at);
    await until('the retry delivered it', async () => (await events())[0]!.status === 'delivered');
    expect(sf.records('Account')).toHaveLength(1);
  });

  it('records that a person left on the Contact that holds them, and deletes nothing', async () => {
    const held = sf.seed('Contact', {
      LastName: 'Okafor',
      Title: 'Senior Account Executive',
      Current_Company__c: 'Umbrella Corp',
      Hooksync_Person_Id__c: 'ad5a6f7e-8192-43a4-82e5-4f3a2b1c0d95',
    });
    const configured = await configure({ write: 'overwrite' });
    await world.storeFixture('job-change-left');
    await deliverAll(configured);
    expect((await events())[0]!.status).toBe('delivered');
    expect(sf.records('Contact')).toHaveLength(1);
    expect(sf.records('Lead')).toEqual([]);
    expect(sf.records('Contact')[0]).toMatchObject({
      Id: held,
      Job_Change_Status__c: 'left',
      Title: 'Senior Account Executive',
      Current_Company__c: 'Umbrella Corp',
    });
  });

  it('setup reports what the org lacks, with the fix, and reads the allocation', async () => {
    await sf.close();
    sf = await startSalesforceStandIn({ setUp: false });
    const configured = await configure();
    const report = await setupOf(createFor(configured))!({
      dryRun: false,
      signal: AbortSignal.timeout(20_000),
    });
    expect(report.problems).toContainEqual(
      expect.stringMatching(
        /^Account\.Hooksync_Company_Id__c is missing: create the custom field .*External ID, Unique/,
      ),
    );
    expect(report.problems).toContain(
      'nothing adopted: the key fields above must exist first (then run setup again)',
    );
    expect(report.allocation).toEqual({ max: 15_000, remaining: 15_000 - sf.usage().used });
    expect(sf.calls().every((c) => c.method === 'GET' || c.path.includes('/oauth2/'))).toBe(true);
  });

  it('setup warns of a mapped field that is missing (left out of the writes) without failing', async () => {
    sf.removeField('Contact', 'Current_Company__c');
    const configured = await configure();
    const report = await setupOf(createFor(configured))!({
      dryRun: true,
      signal: AbortSignal.timeout(20_000),
    });
    expect(report.problems).toEqual([]);
    expect(report.warnings).toContainEqual(
      expect.stringMatching(
        /^Contact\.Current_Company__c is missing: create the custom field .* \(until then it is left out of the writes\)$/,
      ),
    );
  });

  it('setup adopts the Account whose Website and the Contact whose Email match, reports the ambiguous, dry run first', async () => {
    const configured = await configure();
    await world.storeFixture('company-reveal');
    await world.storeFixture('job-change-moved');
    await normalized();
    await world.database.db.updateTable('outbox_events').set({ status: 'failed' }).execute();
    const acme = sf.seed('Account', { Name: 'Acme (typed)', Website: 'https://www.Acme-Robotics.com/' });
    const initech = [
      sf.seed('Account', { Name: 'Initech', Website: 'initech.io' }),
      sf.seed('Account', { Name: 'Initech GmbH', Website: 'http://www.initech.io' }),
    ].sort();
    sf.seed('Account', { Name: 'Not Acme', Website: 'notacme-robotics.com' });
    const maria = sf.seed('Contact', { LastName: 'Keller', Email: 'Maria.Keller@globex.com' });
    const setUp = setupOf(createFor(configured))!;

    const dry = await setUp({ dryRun: true, signal: AbortSignal.timeout(20_000) });
    expect(dry.problems).toEqual([]);
    expect(dry.adopted).toEqual([{ domain: 'acme-robotics.com', id: acme }]);
    expect(dry.ambiguous).toEqual([{ domain: 'initech.io', ids: initech }]);
    expect(dry.adoptedPersons).toEqual([
      {
        email: 'maria.keller@globex.com',
        key: '9c4f5e6d-7a81-4293-b1d4-2e1f0a9b8c73',
        object: 'Contact',
        id: maria,
      },
    ]);
    expect(dry.allocation?.max).toBe(15_000);
    expect(sf.findBy('Account', 'Hooksync_Company_Id__c', 'acme-robotics.com')).toEqual([]);
    for (const call of sf.calls()) expect(call.uriLength).toBeLessThanOrEqual(2_000);

    const done = await setUp({ dryRun: false, signal: AbortSignal.timeout(20_000) });
    expect(done.adopted).toEqual(dry.adopted);
    expect(sf.findBy('Account', 'Hooksync_Company_Id__c', 'acme-robotics.com').map((a) => a.Id)).toEqual([
      acme,
    ]);
    expect(
      sf.findBy('Contact', 'Hooksync_Person_Id__c', '9c4f5e6d-7a81-4293-b1d4-2e1f0a9b8c73').map((c) => c.Id),
    ).toEqual([maria]);
    for (const id of initech)
      expect(sf.records('Account').find((a) => a.Id === id)!.Hooksync_Company_Id__c ?? null).toBeNull();

    // Run again: nothing left to adopt, what was stamped counts as keyed.
    const again = await setUp({ dryRun: false, signal: AbortSignal.timeout(20_000) });
    expect([again.adopted, again.adoptedPersons]).toEqual([[], []]);
    expect(again.alreadyKeyed).toBe(1);
    expect(again.contactsAlreadyKeyed).toBe(1);

    // The first sync updates the adopted records instead of creating others.
    await world.database.db.updateTable('outbox_events').set({ status: 'pending' }).execute();
    await deliverAll(configured);
    expect(sf.findBy('Account', 'Hooksync_Company_Id__c', 'acme-robotics.com').map((a) => a.Id)).toEqual([
      acme,
    ]);
    expect(sf.records('Account').find((a) => a.Id === acme)!.Name).toBe('Acme (typed)');
    const contacts = sf.findBy('Contact', 'Hooksync_Person_Id__c', '9c4f5e6d-7a81-4293-b1d4-2e1f0a9b8c73');
    expect(contacts.map((c) => c.Id)).toEqual([maria]);
    expect(sf.findBy('Lead', 'Hooksync_Person_Id__c', '9c4f5e6d-7a81-4293-b1d4-2e1f0a9b8c73')).toEqual([]);
  });

  it('dry-runs a batch above bulk_threshold: counts the Bulk job its calls would be, writes nothing', async () => {
    const configured = await configure({ bulk_threshold: 60 });
    await storeReveals(100);
    await world.database.db.updateTable('outbox_events').set({ status: 'failed' }).execute();
    const report = await dryRunReplay({
      database: world.database,
      destination: createFor(configured) as CrmDestination,
      name: 'sf',
      selection: { failed: true },
      signal: AbortSignal.timeout(30_000),
    });
    expect(report.records.filter((r) => r.action === 'create')).toHaveLength(100);
    // One SOQL read of the 100 keys (fill-empty), and the job: create, upload, close, a poll, two results.
    expect(report.calls).toBe(1 + 6);
    expect(sf.bulkJobs()).toEqual([]);
    expect(sf.records('Account')).toEqual([]);
  });
}

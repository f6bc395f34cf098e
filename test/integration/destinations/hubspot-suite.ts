/**
 * The hubspot destination end to end, against the HubSpot stand-in (real HTTP on port 0) and a real
 * database (SQLite file or Postgres): setup and adoption, keys without duplicates, fill-empty vs overwrite
 * per field, moved and left contacts, associations, 100-input batches, each 429 policy, 401, a 207 partial
 * failure, an e-mail batch split, the dry run.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { dryRunReplay } from '../../../src/destinations/crm/dry-run-replay.js';
import { listDestinationStates, replayEvents } from '../../../src/destinations/destination-admin.js';
import type { ConfiguredDestination } from '../../../src/destinations/load-destinations.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type HubSpotStandIn, rateLimitBody, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';
import { configureHubSpot, createHubSpot, HUBSPOT_TOKEN_ENV, setUpHubSpot } from './hubspot-world.js';

const ENV_NAME = HUBSPOT_TOKEN_ENV;

/** Registers the HubSpot cases on `provision`'s dialect. */
export function defineHubSpotSuite(provision: Provision): void {
  let world: DestinationsWorld;
  let hs: HubSpotStandIn;

  beforeEach(async () => {
    world = await openWorld(provision);
    hs = await startHubSpotStandIn();
  });
  afterEach(async () => {
    await world.close();
    await hs.close();
  });

  const configure = (extra: Record<string, unknown> = {}) => configureHubSpot(world, hs, extra);
  const create = (configured: ConfiguredDestination) => createHubSpot(world, configured);
  const setup = (configured: ConfiguredDestination) => setUpHubSpot(world, configured);
  const pending = async () =>
    Number(
      (
        await world.database.db
          .selectFrom('outbox_events')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow()
      ).n,
    );
  const events = () => world.database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute();
  const deliverAll = async (configured: ConfiguredDestination) => {
    await world.dispatcher([configured]);
    await until('every event is delivered or failed', async () => (await pending()) === 0, 20_000);
  };
  const storeText = (text: string) => world.store.store({ envelopeText: text, source: 'webhook' });
  const upsertCalls = (object: string) =>
    hs.calls().filter((call) => call.path.endsWith(`/${object}/batch/upsert`));

  it('setup creates the keys and hooksync_* properties once, and adopts the company the portal holds', async () => {
    const configured = await configure();
    const repTyped = hs.seed('companies', { name: 'Acme Robotics (rep)', domain: 'www.Acme-Robotics.com' });
    await world.storeFixture('company-reveal');
    const dry = await create(configured).setupPortal({ dryRun: true, signal: AbortSignal.timeout(30_000) });
    expect(dry.properties.map((p) => `${p.object}.${p.name}`)).toContain('companies.hooksync_domain');
    expect(dry.adopted).toEqual([{ domain: 'acme-robotics.com', id: repTyped }]);
    expect(hs.propertyDefinitions('companies').some((d) => d.name === 'hooksync_domain')).toBe(false);

    const report = await setup(configured);
    expect(report.properties).toEqual(dry.properties);
    expect(
      hs.propertyDefinitions('companies').find((d) => d.name === 'hooksync_domain')?.hasUniqueValue,
    ).toBe(true);
    expect(
      hs.propertyDefinitions('contacts').find((d) => d.name === 'hooksync_linkedin_url')?.hasUniqueValue,
    ).toBe(true);
    expect(hs.findBy('companies', 'hooksync_domain', 'acme-robotics.com')?.id).toBe(repTyped);
    const again = await setup(configured);
    expect(again.properties).toEqual([]);
    expect(again.adopted).toEqual([]);
    expect(again.alreadyKeyed).toBe(1);

    await deliverAll(configured);
    // The first sync updates the rep's company: no duplicate, and the rep's name is kept (fill-empty).
    expect(hs.records('companies')).toHaveLength(1);
    expect(hs.records('companies')[0]!.properties.name).toBe('Acme Robotics (rep)');
    expect(hs.records('companies')[0]!.properties.linkedin_company_page).toBe(
      'https://www.linkedin.com/company/acme-robotics',
    );
  });

  it('reports two companies with one domain as ambiguous and adopts neither', async () => {
    const configured = await configure();
    const a = hs.seed('companies', { name: 'Acme A', domain: 'acme-robotics.com' });
    const b = hs.seed('companies', { name: 'Acme B', domain: 'acme-robotics.com' });
    await world.storeFixture('company-reveal');
    const report = await setup(configured);
    expect(report.ambiguous).toEqual([{ domain: 'acme-robotics.com', ids: [a, b].sort() }]);
    expect(report.adopted).toEqual([]);
  });

  it('setup adopts a contact the portal holds by its LinkedIn URL, reports two as ambiguous, and the sync updates it', async () => {
    const configured = await configure();
    const tobias = 'https://www.linkedin.com/in/tobias-brandt';
    const lena = 'https://www.linkedin.com/in/lena-vogel-sales';
    // Spelled as reps and imports spell them: no scheme, a trailing slash, no www.
    const repTyped = hs.seed('contacts', {
      firstname: 'Tobias (rep)',
      hs_linkedin_url: 'linkedin.com/in/tobias-brandt/',
    });
    const a = hs.seed('contacts', { firstname: 'Lena A', hs_linkedin_url: lena });
    const b = hs.seed('contacts', {
      firstname: 'Lena B',
      hs_linkedin_url: 'https://linkedin.com/in/lena-vogel-sales',
    });
    await world.storeFixture('search-contact');
    const dry = await create(configured).setupPortal({ dryRun: true, signal: AbortSignal.timeout(30_000) });
    expect(dry.adoptedContacts).toEqual([{ linkedinUrl: tobias, id: repTyped }]);
    expect(dry.ambiguousContacts).toEqual([{ linkedinUrl: lena, ids: [a, b].sort() }]);
    expect(hs.calls().some((call) => call.path.endsWith('/contacts/batch/update'))).toBe(false);

    const report = await setup(configured);
    expect(report.adoptedContacts).toEqual(dry.adoptedContacts);
    expect(hs.findBy('contacts', 'hooksync_linkedin_url', tobias)?.id).toBe(repTyped);
    expect((await setup(configured)).contactsAlreadyKeyed).toBe(1);

    await deliverAll(configured);
    // Tobias is updated where the rep typed him (his first name kept: fill-empty), not created again.
    const tobiasRecords = hs.records('contacts').filter((c) => c.properties.hooksync_linkedin_url === tobias);
    expect(tobiasRecords.map((c) => c.id)).toEqual([repTyped]);
    expect(tobiasRecords[0]!.properties.firstname).toBe('Tobias (rep)');
  });

  it('writes reveals, searches and job changes as companies, contacts and associations, without duplicates', async () => {
    const configured = await configure();
    await setup(configured);
    await world.storeFixture('company-reveal');
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await world.storeFixture('search-contact');
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(Array(5).fill('delivered'));
    const domains = hs
      .records('companies')
      .map((c) => c.properties.hooksync_domain)
      .sort();
    // The Northwind person has no LinkedIn URL and no e-mail: skipped, and with it its employer.
    expect(domains).toEqual(['acme-robotics.com', 'initech.io']);
    const byLinkedin = hs.findBy(
      'contacts',
      'hooksync_linkedin_url',
      'https://www.linkedin.com/in/tobias-brandt',
    );
    expect(byLinkedin).toBeDefined();
    const moved = hs.findBy('contacts', 'email', 'maria.keller@globex.com');
    expect(moved?.properties.jobtitle).toBe('VP Revenue Operations');
    expect(hs.records('contacts')).toHaveLength(3);
    const initech = hs.findBy('companies', 'hooksync_domain', 'initech.io')!;
    const links = hs.associations();
    expect(links).toContainEqual({ contactId: moved!.id, companyId: initech.id, typeId: 279 });
    expect(links).toContainEqual({ contactId: moved!.id, companyId: initech.id, typeId: 1 });
    const acme = hs.findBy('companies', 'hooksync_domain', 'acme-robotics.com')!;
    expect(links).toContainEqual({ contactId: byLinkedin!.id, companyId: acme.id, typeId: 279 });
    // Every call is a batch; upserts never carry a key twice.
    for (const call of upsertCalls('companies')) {
      const ids = (call.body as { inputs: Array<{ id: string }> }).inputs.map((input) => input.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    const states = await listDestinationStates(world.database.db, Date.now());
    expect(states[0]!.counters).toMatchObject({ companies_created: 2, contacts_created: 3 });
    expect(states[0]!.counters.api_calls).toBeGreaterThan(0);
    expect(states[0]!.counters.daily_remaining).toBeGreaterThan(249_000);
    expect(await world.registry.metrics()).toContain(
      'hooksync_destination_counter{destination="crm",counter="companies_created"} 2',
    );
  });

  it('a contact who left gets the status only; one who moved gets the new title and company', async () => {
    const configured = await configure();
    await setup(configured);
    const left = envelopeText('job-change-left');
    const contactId = hs.seed('contacts', {
      email: 'jide@umbrella-corp.com',
      jobtitle: 'Senior Account Executive',
      company: 'Umbrella Corp',
    });
    await storeText(
      left.text.replace('"professional_email": null', '"professional_email": "jide@umbrella-corp.com"'),
    );
    const moved = envelopeText('job-change-moved');
    hs.seed('contacts', { email: 'maria.keller@globex.com', jobtitle: 'Old title', company: 'Initech' });
    await storeText(moved.text);
    await deliverAll(configured);
    const jide = hs.records('contacts').find((c) => c.id === contactId)!;
    expect(jide.properties.hooksync_job_change_status).toBe('left');
    expect(jide.properties.jobtitle).toBe('Senior Account Executive');
    expect(hs.associations().some((link) => link.contactId === contactId)).toBe(false);
    const maria = hs.findBy('contacts', 'email', 'maria.keller@globex.com')!;
    expect(maria.properties.jobtitle).toBe('VP Revenue Operations');
    expect(maria.properties.company).toBe('Initech');
    const initech = hs.findBy('companies', 'hooksync_domain', 'initech.io')!;
    expect(hs.associations()).toContainEqual({ contactId: maria.id, companyId: initech.id, typeId: 1 });
  });

  it('sends 150 reveals as upserts of at most 100 inputs', async () => {
    const configured = await configure({ write: 'overwrite' });
    await setup(configured);
    const { text } = envelopeText('company-reveal');
    for (let index = 0; index < 150; index += 1) {
      await storeText(
        envelopeText('company-reveal').text.replaceAll('acme-robotics.com', `acme-${index}.com`),
      );
    }
    void text;
    await deliverAll(configured);
    expect(hs.records('companies')).toHaveLength(150);
    const sizes = upsertCalls('companies').map((call) => (call.body as { inputs: unknown[] }).inputs.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(150);
    expect(sizes.length).toBeLessThanOrEqual(3);
  });

  it('a TEN_SECONDLY_ROLLING 429 defers every pending event ≥ 10 s without spending an attempt', async () => {
    const configured = await configure();
    await setup(configured);
    hs.failNext({
      status: 429,
      body: rateLimitBody('TEN_SECONDLY_ROLLING'),
      match: { pathIncludes: '/batch/upsert' },
    });
    await world.storeFixture('company-reveal');
    const started = Date.now();
    await world.dispatcher([configured]);
    await until('the 429 was answered', () => hs.calls().some((call) => call.status === 429));
    await until('the event is deferred', async () => {
      const [event] = await events();
      return event!.last_status === 429;
    });
    const [event] = await events();
    expect(event!.status).toBe('pending');
    expect(event!.attempts).toBe(0);
    expect(Date.parse(event!.next_attempt_at) - started).toBeGreaterThanOrEqual(10_000);
    const [state] = await listDestinationStates(world.database.db, Date.now());
    expect(state!.last_error).toContain('TEN_SECONDLY_ROLLING');
    expect(state!.counters.rate_limited_ten_secondly_rolling).toBe(1);
  });

  it('a DAILY 429 defers the events for the window and says so', async () => {
    const configured = await configure();
    await setup(configured);
    hs.failNext({ status: 429, body: rateLimitBody('DAILY'), match: { pathIncludes: '/batch/' } });
    await world.storeFixture('company-reveal');
    const started = Date.now();
    await world.dispatcher([configured]);
    await until('the event is deferred', async () => (await events())[0]!.last_status === 429);
    const [event] = await events();
    expect(Date.parse(event!.next_attempt_at) - started).toBeGreaterThanOrEqual(3_600_000);
    const [state] = await listDestinationStates(world.database.db, Date.now());
    expect(state!.last_error).toContain('DAILY');
  });

  it('a 401 pauses the destination with a message naming the token variable, not the token', async () => {
    const configured = await configure();
    await setup(configured);
    hs.failNext({ status: 401, match: { pathIncludes: '/batch/' } });
    await world.storeFixture('company-reveal');
    await world.dispatcher([configured]);
    await until(
      'the destination is paused',
      async () => (await listDestinationStates(world.database.db, Date.now()))[0]!.paused,
    );
    const [state] = await listDestinationStates(world.database.db, Date.now());
    expect(state!.last_error).toContain(ENV_NAME);
    expect(state!.last_error).not.toContain(hs.token);
    expect((await events())[0]!.status).toBe('pending');
    expect(world.logs.text()).not.toContain(hs.token);
  });

  it('a 207 fails only the event of the record HubSpot refused, with its message; replay delivers it', async () => {
    const configured = await configure();
    await setup(configured);
    await world.storeFixture('company-reveal');
    await deliverAll(configured);
    // The portal's industry options change after hooksync read them: HubSpot refuses that one company.
    hs.defineProperty('companies', {
      name: 'industry',
      type: 'enumeration',
      fieldType: 'select',
      options: [{ label: 'Other', value: 'OTHER' }],
    });
    // good.io's industry has no HubSpot value: left blank, so not sent, so not refused.
    const good = envelopeText('company-reveal')
      .text.replaceAll('acme-robotics.com', 'good.io')
      .replace('"Industrial Automation"', '"Nothing HubSpot knows"');
    const bad = envelopeText('company-reveal').text.replaceAll('acme-robotics.com', 'bad.io');
    await storeText(good);
    await storeText(bad);
    await until('both are done', async () => (await pending()) === 0, 20_000);
    const later = (await events()).slice(1);
    const statuses = later.map((e) => e.status);
    expect(statuses.sort()).toEqual(['delivered', 'failed']);
    const failed = later.find((e) => e.status === 'failed')!;
    expect(failed.last_error).toContain('bad.io');
    expect(failed.last_error).toContain('INDUSTRIAL_AUTOMATION');
    expect(hs.findBy('companies', 'hooksync_domain', 'good.io')).toBeDefined();
    expect(hs.findBy('companies', 'hooksync_domain', 'bad.io')).toBeUndefined();
    // The option comes back; a replay delivers the failed event like any other.
    hs.defineProperty('companies', {
      name: 'industry',
      type: 'enumeration',
      fieldType: 'select',
      options: [{ label: 'Industrial Automation', value: 'INDUSTRIAL_AUTOMATION' }],
    });
    expect(await replayEvents(world.database.db, 'crm', { failed: true }, new Date().toISOString())).toBe(1);
    await until('the replay is delivered', async () => (await pending()) === 0, 20_000);
    expect((await events()).every((e) => e.status === 'delivered')).toBe(true);
    expect(hs.findBy('companies', 'hooksync_domain', 'bad.io')?.properties.industry).toBe(
      'INDUSTRIAL_AUTOMATION',
    );
  });

  it('an e-mail-keyed batch refused whole is split until the bad record stands alone', async () => {
    // A linger long enough for the four jobs below to go in one batch.
    const configured = await configure({ linger: '2s' });
    await setup(configured);
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    hs.defineProperty('contacts', {
      name: 'hooksync_job_change_status',
      type: 'enumeration',
      fieldType: 'select',
      options: [{ label: 'left', value: 'left' }],
    });
    const texts = ['a', 'b', 'c', 'd'].map((who) =>
      envelopeText('job-change-moved').text.replaceAll('maria.keller@globex.com', `${who}@globex.com`),
    );
    // Only d's status is refused: the others' batch is written after the split.
    for (const [index, text] of texts.entries())
      await storeText(index === 3 ? text : text.replace('"moved"', '"left"'));
    await until('all done', async () => (await pending()) === 0, 20_000);
    const later = (await events()).slice(1);
    expect(later.filter((e) => e.status === 'failed')).toHaveLength(1);
    expect(hs.findBy('contacts', 'email', 'a@globex.com')?.properties.hooksync_job_change_status).toBe(
      'left',
    );
    expect(hs.findBy('contacts', 'email', 'd@globex.com')).toBeUndefined();
    const tried = upsertCalls('contacts')
      .slice(1)
      .map((call) => [(call.body as { inputs: unknown[] }).inputs.length, call.status]);
    // 4 refused whole, halves of 2 (one refused), then that half's two alone.
    expect(tried).toEqual([
      [4, 400],
      [2, 200],
      [2, 400],
      [1, 200],
      [1, 400],
    ]);
  });

  it('a dry run reads only and says create, update field by field, or skip', async () => {
    const configured = await configure();
    await setup(configured);
    hs.seed('companies', {
      name: 'Typed',
      domain: 'acme-robotics.com',
      hooksync_domain: 'acme-robotics.com',
    });
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    const done = await world.database.db.selectFrom('outbox_events').select('id').execute();
    await world.database.db
      .updateTable('outbox_events')
      .set({ status: 'failed' })
      .where(
        'id',
        'in',
        done.map((r) => r.id),
      )
      .execute();
    const before = hs.records('companies').map((c) => ({ ...c }));
    const callsBefore = hs.calls().length;
    const report = await dryRunReplay({
      database: world.database,
      destination: create(configured),
      name: 'crm',
      selection: { failed: true },
      signal: AbortSignal.timeout(30_000),
    });
    expect(hs.records('companies')).toEqual(before);
    expect(
      hs
        .calls()
        .slice(callsBefore)
        // Reads only: batch reads, property definitions, and the search that looks for records to adopt.
        .every(
          (call) =>
            call.path.endsWith('/batch/read') || call.path.endsWith('/search') || call.method === 'GET',
        ),
    ).toBe(true);
    const acme = report.records.find((r) => r.key === 'acme-robotics.com')!;
    expect(acme.action).toBe('update');
    expect(acme.changes.map((c) => c.property)).not.toContain('name');
    expect(report.records.filter((r) => r.object === 'contacts').map((r) => r.action)).toEqual([
      'create',
      'create',
    ]);
    expect(report.calls).toBeGreaterThanOrEqual(4);
  });
}

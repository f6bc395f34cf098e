/**
 * The CRM's truth, end to end against the HubSpot stand-in and a real database: a portal holding what a
 * sales team typed (no hooksync key) is adopted at sync time, without duplicates, whether `setup` ran
 * before the jobs or after them (the README's recipe in either order); an e-mail-keyed update of an
 * existing contact is delivered although the answer does not echo the e-mail; a carried hs_object_id
 * updates that very record; two records for one domain fail the event as ambiguous until merged; a record
 * found once is never searched again; a malformed answer is a failed attempt, not a loop.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { listDestinationStates, replayEvents } from '../../../src/destinations/destination-admin.js';
import type { ConfiguredDestination } from '../../../src/destinations/load-destinations.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';
import { configureHubSpot, setUpHubSpot } from './hubspot-world.js';

/** Registers the adoption cases on `provision`'s dialect. */
export function defineHubSpotAdoptionSuite(provision: Provision): void {
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
  const setup = (configured: ConfiguredDestination) => setUpHubSpot(world, configured);
  const events = () => world.database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute();
  const settled = async () => (await events()).every((event) => event.status !== 'pending');
  let started = false;
  const deliverAll = async (configured: ConfiguredDestination) => {
    if (!started) await world.dispatcher([configured]);
    started = true;
    await until('every event is delivered or failed', settled, 20_000);
  };
  beforeEach(() => {
    started = false;
  });
  const searches = () => hs.calls().filter((call) => call.path.endsWith('/search')).length;
  const withDomain = (domain: string) =>
    hs
      .records('companies')
      .filter((record) => (record.properties.domain ?? '').replace(/^www\./, '') === domain);
  const withLinkedin = (slug: string) =>
    hs.records('contacts').filter((record) => (record.properties.hs_linkedin_url ?? '').includes(slug));
  /** A sales team's portal: an account and two people, typed as reps type them, no hooksync key. */
  const seedTypedPortal = () => ({
    acme: hs.seed('companies', { name: 'Acme Robotics (typed)', domain: 'www.acme-robotics.com' }),
    tobias: hs.seed('contacts', {
      firstname: 'Tobias (typed)',
      hs_linkedin_url: 'linkedin.com/in/tobias-brandt/',
    }),
    lena: hs.seed('contacts', {
      firstname: 'Lena (typed)',
      hs_linkedin_url: 'https://www.linkedin.com/in/lena-vogel-sales',
    }),
  });

  for (const order of ['setup before the jobs', 'setup after the jobs'] as const) {
    it(`adopts what a sales team typed, with ${order}: one record per company and person`, async () => {
      const configured = await configure();
      const typed = seedTypedPortal();
      if (order === 'setup before the jobs') await setup(configured);
      await world.storeFixture('company-reveal');
      await world.storeFixture('search-contact');
      if (order === 'setup after the jobs') await setup(configured);
      await deliverAll(configured);

      expect((await events()).map((event) => [event.status, event.last_error])).toEqual([
        ['delivered', null],
        ['delivered', null],
      ]);
      expect(withDomain('acme-robotics.com').map((record) => record.id)).toEqual([typed.acme]);
      expect(hs.findBy('companies', 'hooksync_domain', 'acme-robotics.com')?.id).toBe(typed.acme);
      // fill-empty: what the rep typed stays.
      expect(hs.findBy('companies', 'hooksync_domain', 'acme-robotics.com')?.properties.name).toBe(
        'Acme Robotics (typed)',
      );
      expect(withLinkedin('tobias-brandt').map((record) => record.id)).toEqual([typed.tobias]);
      expect(withLinkedin('lena-vogel-sales').map((record) => record.id)).toEqual([typed.lena]);
      expect(
        hs.findBy('contacts', 'hooksync_linkedin_url', 'https://www.linkedin.com/in/tobias-brandt')?.id,
      ).toBe(typed.tobias);
      expect(hs.associations().some((a) => a.contactId === typed.tobias && a.companyId === typed.acme)).toBe(
        true,
      );
    });
  }

  it('never searches again for a record found once (the ids are kept in the database)', async () => {
    const configured = await configure();
    defineSetUpProperties(hs);
    seedTypedPortal();
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await deliverAll(configured);
    const before = searches();
    expect(before).toBeGreaterThan(0);
    const recorded = await world.database.db.selectFrom('crm_record_ids').selectAll().execute();
    expect(recorded.map((row) => `${row.object} ${row.key}`)).toEqual(
      expect.arrayContaining([
        'companies acme-robotics.com',
        'contacts https://www.linkedin.com/in/tobias-brandt',
      ]),
    );
    // The same company and people again, in new jobs: written by key, no search.
    await world.store.store({ envelopeText: envelopeText('company-reveal').text, source: 'webhook' });
    await world.store.store({ envelopeText: envelopeText('search-contact').text, source: 'webhook' });
    await until('the new events are done', async () => (await events()).length === 4 && (await settled()));
    expect((await events()).every((event) => event.status === 'delivered')).toBe(true);
    expect(searches()).toBe(before);
    expect(withDomain('acme-robotics.com')).toHaveLength(1);
  });

  it('updates an existing contact by e-mail, though the answer does not echo the e-mail', async () => {
    const configured = await configure();
    defineSetUpProperties(hs);
    const maria = hs.seed('contacts', { email: 'maria.keller@globex.com', firstname: 'Maria (typed)' });
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    const [event] = await events();
    expect([event!.status, event!.last_error]).toEqual(['delivered', null]);
    expect(hs.records('contacts').map((record) => record.id)).toEqual([maria]);
    expect(
      hs.findBy('contacts', 'email', 'maria.keller@globex.com')?.properties.hooksync_job_change_status,
    ).toBe('moved');
  });

  it('updates the very record a job carries (hs_object_id), whatever its e-mail, and creates none', async () => {
    const configured = await configure();
    defineSetUpProperties(hs);
    const carried = hs.seed('contacts', { email: 'm.keller@old-address.example', firstname: 'Maria' });
    const text = envelopeText('job-change-moved').text.replace(
      '"hubspot_contact_id": "951203"',
      `"hs_object_id": "${carried}"`,
    );
    await world.store.store({ envelopeText: text, source: 'webhook' });
    await deliverAll(configured);
    expect((await events())[0]!.status).toBe('delivered');
    expect(hs.records('contacts').map((record) => record.id)).toEqual([carried]);
    const record = hs.records('contacts')[0]!;
    expect(record.properties.email).toBe('m.keller@old-address.example');
    expect(record.properties.hooksync_job_change_status).toBe('moved');
  });

  it('fails an event whose company matches two records, naming both, and delivers it on replay after a merge', async () => {
    const configured = await configure();
    defineSetUpProperties(hs);
    const a = hs.seed('companies', { name: 'Acme A', domain: 'acme-robotics.com' });
    const b = hs.seed('companies', { name: 'Acme B', domain: 'www.acme-robotics.com' });
    await world.storeFixture('company-reveal');
    await deliverAll(configured);
    const [event] = await events();
    expect(event!.status).toBe('failed');
    expect(event!.last_error).toContain('ambiguous');
    expect(event!.last_error).toContain([a, b].sort().join(', '));
    expect(hs.records('companies')).toHaveLength(2);
    // A rep merges them (the stand-in has no merge: B's domain is cleared as a merge would remove B).
    const merge = await fetch(`${hs.url}/crm/v3/objects/companies/batch/update`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hs.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ id: b, properties: { domain: 'acme-old.example' } }] }),
    });
    expect(merge.status).toBe(200);
    expect(await replayEvents(world.database.db, 'crm', { failed: true }, new Date().toISOString())).toBe(1);
    await until('the replay is delivered', async () => (await events())[0]!.status === 'delivered');
    expect(hs.findBy('companies', 'hooksync_domain', 'acme-robotics.com')?.id).toBe(a);
    expect(hs.records('companies')).toHaveLength(2);
  });

  it('counts a malformed 200 as a failed attempt with backoff, and fails the event at the end of its schedule', async () => {
    const configured = await configure({ retry: { schedule: ['10ms', '10ms'] } });
    defineSetUpProperties(hs);
    hs.failNext({ status: 200, body: { results: 5 }, times: 20, match: { pathIncludes: '/batch/' } });
    await world.storeFixture('company-reveal');
    await deliverAll(configured);
    const [event] = await events();
    expect(event!.status).toBe('failed');
    expect(event!.attempts).toBe(3);
    expect(event!.last_error).toContain('cannot read');
    const [state] = await listDestinationStates(world.database.db, Date.now());
    expect(state!.paused).toBe(false);
  });
}

/**
 * A HubSpot portal as a sales team typed it (companies with only a domain, some `www.`, only a website, only
 * a name; contacts with a name and an e-mail but no LinkedIn URL): two deliveries of the same searches and
 * reveals create no duplicate, each typed record is adopted (hooksync's key stamped, counted `adopted`) and
 * gains the fields it lacked (fill-empty), and the second delivery never searches.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readCounters } from '../../../src/destinations/destination-counters.js';
import {
  defineSetUpProperties,
  type HubSpotStandIn,
  startHubSpotStandIn,
} from '../../helpers/hubspot/stand-in.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';
import { configureHubSpot } from './hubspot-world.js';
import { revealOf, searchOf } from './typed-crm-texts.js';

/** Registers the case on `provision`'s dialect. */
export function defineHubSpotTypedCrmSuite(provision: Provision): void {
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

  it('adopts every typed company and contact once, by domain, website, name and full name at the company', async () => {
    const configured = await configureHubSpot(world, hs);
    defineSetUpProperties(hs);
    const acme = hs.seed('companies', { name: 'Acme Robotics (typed)', domain: 'www.acme-robotics.com' });
    const globex = hs.seed('companies', { name: 'Globex (typed)', website: 'https://www.globex.io' });
    const initech = hs.seed('companies', { name: 'Initech' });
    const lena = hs.seed('contacts', {
      firstname: 'Léna',
      lastname: 'VOGEL',
      email: 'lena.vogel@acme-robotics.com',
    });
    const tobias = hs.seed('contacts', {
      firstname: 'Tobias',
      lastname: 'Brandt',
      email: 'tobi@gmail.example',
    });
    hs.associatePrimary(tobias, acme);
    // The same name at another company is another person.
    const namesake = hs.seed('contacts', {
      firstname: 'Tobias',
      lastname: 'Brandt',
      email: 'tobias.brandt@umbrella.example',
    });
    const deliverAll = async () => {
      for (const text of [
        revealOf(),
        revealOf('globex.io', 'Globex'),
        revealOf('initech.example', 'Initech'),
        searchOf(),
      ])
        await world.store.store({ envelopeText: text, source: 'webhook' });
    };
    const events = () => world.database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute();
    const done = (count: number) => async () => {
      const all = await events();
      return all.length === count && all.every((event) => event.status !== 'pending');
    };
    await deliverAll();
    await world.dispatcher([configured]);
    await until('the first delivery is done', done(4), 20_000);
    expect((await events()).map((event) => [event.status, event.last_error])).toEqual(
      Array.from({ length: 4 }, () => ['delivered', null]),
    );
    const searches = () => hs.calls().filter((call) => call.path.endsWith('/search')).length;
    const searched = searches();
    await deliverAll();
    await until('the second delivery is done', done(8), 20_000);
    expect((await events()).every((event) => event.status === 'delivered')).toBe(true);
    expect(searches()).toBe(searched);

    expect(
      hs
        .records('companies')
        .map((record) => record.id)
        .sort(),
    ).toEqual([acme, globex, initech].sort());
    expect(
      hs
        .records('contacts')
        .map((record) => record.id)
        .sort(),
    ).toEqual([lena, tobias, namesake].sort());
    const company = (id: string) => hs.records('companies').find((record) => record.id === id)!.properties;
    const contact = (id: string) => hs.records('contacts').find((record) => record.id === id)!.properties;
    expect(company(acme)).toMatchObject({
      hooksync_domain: 'acme-robotics.com',
      name: 'Acme Robotics (typed)',
    });
    // fill-empty: the domain it lacked, the name it held.
    expect(company(globex)).toMatchObject({
      hooksync_domain: 'globex.io',
      name: 'Globex (typed)',
      domain: 'globex.io',
    });
    expect(company(initech)).toMatchObject({ hooksync_domain: 'initech.example', domain: 'initech.example' });
    expect(contact(lena)).toMatchObject({
      firstname: 'Léna',
      hooksync_linkedin_url: 'https://www.linkedin.com/in/lena-vogel-sales',
      hs_linkedin_url: 'https://www.linkedin.com/in/lena-vogel-sales',
      jobtitle: 'VP Sales DACH',
    });
    expect(contact(tobias).hooksync_linkedin_url).toBe('https://www.linkedin.com/in/tobias-brandt');
    expect(contact(namesake).hooksync_linkedin_url).toBeUndefined();
    const counters = (await readCounters(world.database.db)).get('crm')!;
    expect(counters).toMatchObject({ companies_adopted: 3, contacts_adopted: 2 });
    expect(counters.companies_created ?? 0).toBe(0);
    expect(counters.contacts_created ?? 0).toBe(0);
    const recorded = await world.database.db.selectFrom('crm_record_ids').selectAll().execute();
    expect(recorded.map((row) => `${row.object} ${row.key} ${row.record_id}`).sort()).toEqual(
      [
        `companies acme-robotics.com ${acme}`,
        `companies globex.io ${globex}`,
        `companies initech.example ${initech}`,
        `contacts https://www.linkedin.com/in/lena-vogel-sales ${lena}`,
        `contacts https://www.linkedin.com/in/tobias-brandt ${tobias}`,
      ].sort(),
    );
  });
}

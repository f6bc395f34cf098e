/**
 * A Salesforce org as a sales team typed it (Accounts with only a Website, Contacts with names and e-mails
 * under their Accounts, no LinkedIn URL, no hooksync key): two deliveries of the same searches, reveals and
 * job change adopt every typed record at sync time (by Website, e-mail, and full name at the Account),
 * create no duplicate, and move the mover's Contact to its new employer's Account (created once).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readCounters } from '../../../src/destinations/destination-counters.js';
import { syncDestinations } from '../../../src/destinations/outbox.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type SalesforceStandIn, startSalesforceStandIn } from '../../helpers/salesforce/stand-in.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';
import { salesforceEntry, salesforceSecrets } from './salesforce-world.js';
import { revealOf, searchOf } from './typed-crm-texts.js';

/** Registers the case on `provision`'s dialect. */
export function defineSalesforceTypedCrmSuite(provision: Provision): void {
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

  it('adopts the typed Accounts and Contacts at sync time, creates no duplicate, and moves the mover to its new Account', async () => {
    const [configured] = await world.configure(
      { destinations: [{ name: 'sf', ...salesforceEntry(sf, { linger: '50ms' }) }] },
      salesforceSecrets(sf),
    );
    await syncDestinations(world.database.db, [configured!], new Date().toISOString());
    const acme = sf.seed('Account', { Name: 'Acme (typed)', Website: 'https://www.Acme-Robotics.com/' });
    const globex = sf.seed('Account', { Name: 'Globex', Website: 'globex.com' });
    const lena = sf.seed('Contact', {
      FirstName: 'Léna',
      LastName: 'VOGEL',
      Email: 'lena@acme-robotics.com',
      AccountId: acme,
    });
    const tobias = sf.seed('Contact', { FirstName: 'Tobias', LastName: 'Brandt', AccountId: acme });
    // The same name at another Account is another person.
    const namesake = sf.seed('Contact', { FirstName: 'Tobias', LastName: 'Brandt', AccountId: globex });
    const maria = sf.seed('Contact', {
      FirstName: 'Maria',
      LastName: 'Keller',
      Email: 'Maria.Keller@globex.com',
      Title: 'Director of Sales Operations',
      AccountId: globex,
    });
    const texts = () => [revealOf(), searchOf(), envelopeText('job-change-moved').text];
    const events = () => world.database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute();
    const done = (count: number) => async () => {
      const all = await events();
      return all.length === count && all.every((event) => event.status !== 'pending');
    };
    for (const text of texts()) await world.store.store({ envelopeText: text, source: 'webhook' });
    await world.dispatcher([configured!]);
    await until('the first delivery is done', done(3), 20_000);
    expect((await events()).map((event) => [event.status, event.last_error])).toEqual(
      Array.from({ length: 3 }, () => ['delivered', null]),
    );
    for (const text of texts()) await world.store.store({ envelopeText: text, source: 'webhook' });
    await until('the second delivery is done', done(6), 20_000);
    expect((await events()).every((event) => event.status === 'delivered')).toBe(true);

    const accounts = sf.records('Account');
    const initech = accounts.filter((account) => account.Hooksync_Company_Id__c === 'initech.io');
    expect(initech).toHaveLength(1);
    expect(accounts.map((account) => account.Id).sort()).toEqual([acme, globex, initech[0]!.Id].sort());
    expect(accounts.find((account) => account.Id === acme)).toMatchObject({
      Name: 'Acme (typed)',
      Hooksync_Company_Id__c: 'acme-robotics.com',
    });
    expect(
      sf
        .records('Contact')
        .map((contact) => contact.Id)
        .sort(),
    ).toEqual([lena, tobias, namesake, maria].sort());
    expect(sf.records('Lead')).toEqual([]);
    const contact = (id: string) => sf.records('Contact').find((record) => record.Id === id)!;
    expect(contact(lena)).toMatchObject({
      FirstName: 'Léna',
      Hooksync_Person_Id__c: 'c07c8b9a-a3b4-45c6-94a7-6b5c4d3e2fc8',
      Title: 'VP Sales DACH',
      AccountId: acme,
    });
    expect(contact(tobias).Hooksync_Person_Id__c).toBe('d18d9cab-b4c5-46d7-a5b8-7c6d5e4f3ad9');
    expect(contact(namesake).Hooksync_Person_Id__c ?? null).toBeNull();
    expect(contact(maria)).toMatchObject({
      Hooksync_Person_Id__c: '9c4f5e6d-7a81-4293-b1d4-2e1f0a9b8c73',
      AccountId: initech[0]!.Id,
      Title: 'VP Revenue Operations',
      Job_Change_Status__c: 'moved',
      Previous_Company__c: 'Globex',
    });
    const counters = (await readCounters(world.database.db)).get('sf')!;
    expect(counters).toMatchObject({ companies_adopted: 1, contacts_adopted: 3, companies_created: 1 });
    expect(counters.contacts_created ?? 0).toBe(0);
  });
}

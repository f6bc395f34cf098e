/**
 * A Pipedrive company as a sales team typed it (organizations with a name and a website but no Domain field;
 * persons with names and e-mails under their organizations, no LinkedIn URL): two deliveries of the same
 * searches, reveals and job change adopt every typed record (website host, e-mail, full name at the
 * organization), create no duplicate, and move the mover to its new organization (`org_id`).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readCounters } from '../../../src/destinations/destination-counters.js';
import { syncDestinations } from '../../../src/destinations/outbox.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type PipedriveStandIn, startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { addTemplateFields } from '../../helpers/pipedrive/store.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';
import { revealOf, searchOf } from './typed-crm-texts.js';

/** Registers the case on `provision`'s dialect. */
export function definePipedriveTypedCrmSuite(provision: Provision): void {
  let world: DestinationsWorld;
  let pd: PipedriveStandIn;
  beforeEach(async () => {
    world = await openWorld(provision);
    // Search does not see a write for a minute: the second delivery must not depend on it.
    pd = await startPipedriveStandIn({ indexLagMs: 60_000, burst: 1_000, searchBurst: 1_000 });
  });
  afterEach(async () => {
    await world.close();
    await pd.close();
  });

  it('adopts the typed organizations and persons, creates no duplicate, and moves the mover to its new organization', async () => {
    const keys = addTemplateFields(pd.store);
    const [configured] = await world.configure(
      {
        destinations: [
          {
            name: 'crm',
            type: 'pipedrive',
            token: { env: 'PIPEDRIVE_TOKEN' },
            base_url: pd.url,
            linger: '50ms',
          },
        ],
      },
      { PIPEDRIVE_TOKEN: pd.token },
    );
    await syncDestinations(world.database.db, [configured!], new Date().toISOString());
    const acme = pd.store.insert('organizations', {
      name: 'Acme Robotics',
      website: 'https://www.acme-robotics.com/',
    });
    const globex = pd.store.insert('organizations', { name: 'Globex', website: 'globex.com' });
    const email = (value: string) => [{ value, primary: true, label: 'work' }];
    const lena = pd.store.insert('persons', {
      name: 'LENA VOGEL',
      emails: email('lena@acme-robotics.com'),
      org_id: acme.id,
    });
    const tobias = pd.store.insert('persons', { name: 'Tobias Brandt', org_id: acme.id });
    // The same name at another organization is another person.
    const namesake = pd.store.insert('persons', { name: 'Tobias Brandt', org_id: globex.id });
    const maria = pd.store.insert('persons', {
      name: 'Maria Keller',
      emails: email('maria.keller@globex.com'),
      org_id: globex.id,
    });
    pd.store.settleIndex();
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

    const orgs = pd.store.live('organizations');
    const initech = orgs.filter((org) => org.custom_fields[keys.domain!] === 'initech.io');
    expect(initech).toHaveLength(1);
    expect(orgs.map((org) => org.id).sort()).toEqual([acme.id, globex.id, initech[0]!.id].sort());
    expect(orgs.find((org) => org.id === acme.id)!.custom_fields[keys.domain!]).toBe('acme-robotics.com');
    expect(
      pd.store
        .live('persons')
        .map((person) => person.id)
        .sort(),
    ).toEqual([lena.id, tobias.id, namesake.id, maria.id].sort());
    const person = (id: number) => pd.store.live('persons').find((record) => record.id === id)!;
    expect(person(lena.id).custom_fields[keys.linkedin!]).toBe(
      'https://www.linkedin.com/in/lena-vogel-sales',
    );
    expect(person(tobias.id).custom_fields[keys.linkedin!]).toBe('https://www.linkedin.com/in/tobias-brandt');
    expect(person(namesake.id).custom_fields[keys.linkedin!] ?? null).toBeNull();
    expect(person(maria.id).org_id).toBe(initech[0]!.id);
    const counters = (await readCounters(world.database.db)).get('crm')!;
    expect(counters).toMatchObject({ companies_adopted: 1, contacts_adopted: 3, companies_created: 1 });
    expect(counters.contacts_created ?? 0).toBe(0);
  });
}

/**
 * The pipedrive destination end to end, against the Pipedrive stand-in (real HTTP on port 0) and a real
 * database (SQLite file or Postgres): organizations and persons created once and linked by org_id, no
 * duplicates and no search on a re-run (the key → id map: a GET, 1 token), adoption of what a sales team
 * typed by exact search, fill-empty keeping typed values, a moved person re-linked, a carried pd_id, an
 * ambiguous domain failed, a missing key field and a 401 pausing with one line, a burst 429 deferring.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canDryRun } from '../../../src/destinations/crm/crm-destination.js';
import { dryRunReplay } from '../../../src/destinations/crm/dry-run-replay.js';
import { listDestinationStates, replayEvents } from '../../../src/destinations/destination-admin.js';
import type { ConfiguredDestination } from '../../../src/destinations/load-destinations.js';
import { syncDestinations } from '../../../src/destinations/outbox.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type PipedriveStandIn, startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';

const ENV_NAME = 'PIPEDRIVE_TOKEN';

/** Registers the Pipedrive cases on `provision`'s dialect. */
export function definePipedriveSuite(provision: Provision): void {
  let world: DestinationsWorld;
  let pd: PipedriveStandIn;
  let started = false;

  beforeEach(async () => {
    world = await openWorld(provision);
    // Search does not see a write for a minute: a re-run must not depend on it.
    pd = await startPipedriveStandIn({ indexLagMs: 60_000, burst: 1_000, searchBurst: 1_000 });
    started = false;
  });
  afterEach(async () => {
    await world.close();
    await pd.close();
  });

  /** The custom fields the pipedrive-* templates name (docs/templates.md), as a user creates them. */
  const createFields = () => {
    const domain = pd.store.addField('organizations', 'Domain', 'varchar');
    pd.store.addField('organizations', 'Hooksync ID', 'varchar');
    const linkedin = pd.store.addField('persons', 'LinkedIn URL', 'varchar');
    for (const name of [
      'Hooksync ID',
      'Job title',
      'Job change status',
      'Previous organization',
      'Previous job title',
    ])
      pd.store.addField('persons', name, 'varchar');
    return { domain: domain.key, linkedin: linkedin.key };
  };
  const configure = async (extra: Record<string, unknown> = {}) => {
    const [configured] = await world.configure(
      {
        destinations: [
          {
            name: 'crm',
            type: 'pipedrive',
            token: { env: ENV_NAME },
            base_url: pd.url,
            linger: '50ms',
            ...extra,
          },
        ],
      },
      { [ENV_NAME]: pd.token },
    );
    await syncDestinations(world.database.db, [configured!], new Date().toISOString());
    return configured!;
  };
  const events = () => world.database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute();
  const deliverAll = async (configured: ConfiguredDestination) => {
    if (!started) await world.dispatcher([configured]);
    started = true;
    await until(
      'every event is delivered or failed',
      async () => (await events()).every((event) => event.status !== 'pending'),
      20_000,
    );
  };
  /** An organization as a sales team typed it, with its domain in the key field. */
  const typedOrg = (domainKey: string, name: string, domain: string) => {
    const record = pd.store.insert('organizations', { name, custom_fields: { [domainKey]: domain } });
    pd.store.settleIndex();
    return record;
  };
  /** The first organization create answers 429 with `error`. */
  const tooManyOnCreate = (error: string) =>
    pd.failNext({ method: 'POST', path: /organizations$/ }, 429, { success: false, error, errorCode: 429 });
  /** Dispatches `fixture` until the destination pauses; its state then. */
  const pausedOn = async (configured: ConfiguredDestination, fixture: 'company-reveal') => {
    await world.storeFixture(fixture);
    await world.dispatcher([configured]);
    const state = async () => (await listDestinationStates(world.database.db, Date.now()))[0];
    await until('paused', async () => (await state())!.paused);
    return state();
  };
  const orgs = () => pd.store.live('organizations');
  const persons = () => pd.store.live('persons');
  const searches = () => pd.calls.filter((call) => call.path.includes('/search')).length;
  const tokens = () => pd.calls.reduce((sum, call) => sum + call.tokens, 0);

  it('creates organizations and persons once, linked by org_id, and a re-run (search not yet seeing them) neither duplicates nor searches', async () => {
    const keys = createFields();
    const configured = await configure();
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    expect((await events()).map((e) => [e.status, e.last_error])).toEqual(Array(3).fill(['delivered', null]));
    const domains = orgs()
      .map((o) => o.custom_fields[keys.domain])
      .sort();
    expect(domains).toEqual(['acme-robotics.com', 'initech.io']);
    const acme = orgs().find((o) => o.custom_fields[keys.domain] === 'acme-robotics.com')!;
    const initech = orgs().find((o) => o.custom_fields[keys.domain] === 'initech.io')!;
    const byLinkedin = persons().filter(
      (p) => p.custom_fields[keys.linkedin] !== undefined && p.emails === undefined,
    );
    expect(byLinkedin.length).toBeGreaterThan(0);
    for (const person of byLinkedin) expect(person.org_id).toBe(acme.id);
    const maria = persons().find((p) => JSON.stringify(p.emails ?? []).includes('maria.keller@globex.com'))!;
    expect(maria.org_id).toBe(initech.id);
    const held = { orgs: orgs().length, persons: persons().length };
    // New records: a search (20) and a create (5) each, beside the two field lists (40) read once.
    expect(tokens()).toBeLessThanOrEqual(40 + (held.orgs + held.persons) * 27);
    const recorded = await world.database.db.selectFrom('crm_record_ids').selectAll().execute();
    expect(recorded).toHaveLength(held.orgs + held.persons);

    // The same jobs again: found through the map (no search), nothing created.
    const searchesBefore = searches();
    const tokensBefore = tokens();
    await replayEvents(world.database.db, 'crm', {}, new Date().toISOString());
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(Array(3).fill('delivered'));
    expect({ orgs: orgs().length, persons: persons().length }).toEqual(held);
    expect(searches()).toBe(searchesBefore);
    // fill-empty: each record seen before costs its GET (1) and at most a PATCH (5).
    const records = held.orgs + held.persons;
    expect(tokens() - tokensBefore).toBeLessThanOrEqual(records * 6);
  });

  it('adopts what a sales team typed by exact search, keeping typed values (fill-empty), and creates no duplicate', async () => {
    const keys = createFields();
    const typed = typedOrg(keys.domain, 'Acme (typed)', 'acme-robotics.com');
    const typedPerson = pd.store.insert('persons', {
      name: 'Tobias (typed)',
      custom_fields: { [keys.linkedin]: 'https://www.linkedin.com/in/tobias-brandt' },
    });
    pd.store.settleIndex();
    const configured = await configure();
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(['delivered', 'delivered']);
    expect(orgs().map((o) => o.id)).toEqual([typed.id]);
    expect(orgs()[0]!.name).toBe('Acme (typed)');
    expect(orgs()[0]!.website).toBeDefined();
    const tobias = persons().filter((p) => String(p.custom_fields[keys.linkedin]).includes('tobias-brandt'));
    expect(tobias.map((p) => p.id)).toEqual([typedPerson.id]);
    expect(tobias[0]!.name).toBe('Tobias (typed)');
    expect(tobias[0]!.org_id).toBe(typed.id);
  });

  it('fails an event whose domain matches two organizations, naming both, and creates none', async () => {
    const keys = createFields();
    const a = typedOrg(keys.domain, 'Acme A', 'acme-robotics.com');
    const b = typedOrg(keys.domain, 'Acme B', 'ACME-robotics.com');
    const configured = await configure();
    await world.storeFixture('company-reveal');
    await deliverAll(configured);
    const [event] = await events();
    expect(event!.status).toBe('failed');
    expect(event!.last_error).toContain('ambiguous');
    expect(event!.last_error).toContain(`${a.id}, ${b.id}`);
    expect(orgs()).toHaveLength(2);
  });

  it('updates the very person a job carries (pd_id), and re-links a moved person to the new organization', async () => {
    const keys = createFields();
    const old = typedOrg(keys.domain, 'Globex', 'globex.com');
    const carried = pd.store.insert('persons', {
      name: 'Maria (typed)',
      org_id: old.id,
      emails: [{ value: 'm.keller@old.example', primary: true, label: 'work' }],
    });
    const text = envelopeText('job-change-moved').text.replace(
      '"hubspot_contact_id": "951203"',
      `"pd_id": "${carried.id}"`,
    );
    expect(text).toContain('"pd_id"');
    const configured = await configure();
    await world.store.store({ envelopeText: text, source: 'webhook' });
    await deliverAll(configured);
    expect((await events())[0]!.status).toBe('delivered');
    expect(persons().map((p) => p.id)).toEqual([carried.id]);
    const initech = orgs().find((o) => o.custom_fields[keys.domain] === 'initech.io')!;
    expect(persons()[0]!.org_id).toBe(initech.id);
    expect(persons()[0]!.name).toBe('Maria (typed)');
  });

  it('pauses with one line naming a missing key field and its setting', async () => {
    const configured = await configure();
    const state = await pausedOn(configured, 'company-reveal');
    expect(state!.last_error).toContain('Pipedrive has no organization field "Domain"');
    expect(state!.last_error).toContain('org_key_field');
    expect(orgs()).toHaveLength(0);
    expect((await events())[0]!.status).toBe('pending');
  });

  it('a 401 pauses the destination with a message naming the token variable, not the token', async () => {
    createFields();
    const configured = await configure();
    pd.failNext({ path: /organizationFields/ }, 401, {
      success: false,
      error: 'unauthorized access',
      errorCode: 401,
    });
    const state = await pausedOn(configured, 'company-reveal');
    expect(state!.last_error).toContain(ENV_NAME);
    expect(state!.last_error).not.toContain(pd.token);
    expect(world.logs.text()).not.toContain(pd.token);
  });

  it('a burst 429 defers the events for the 2 s window, never sent through, then delivers them', async () => {
    createFields();
    const configured = await configure();
    tooManyOnCreate('Request over limit');
    await world.storeFixture('company-reveal');
    await deliverAll(configured);
    expect((await events())[0]!.status).toBe('delivered');
    expect(pd.calls.filter((call) => call.status === 429)).toHaveLength(1);
    expect(pd.calls.some((call) => call.status === 403)).toBe(false);
    expect(orgs()).toHaveLength(1);
    const [state] = await listDestinationStates(world.database.db, Date.now());
    expect(state!.counters.rate_limited_burst).toBe(1);
  });

  it('a daily 429 defers the events until the reset', async () => {
    createFields();
    const configured = await configure();
    tooManyOnCreate('daily request budget exceeded');
    await world.storeFixture('company-reveal');
    const started = Date.now();
    await world.dispatcher([configured]);
    await until('the event is deferred', async () => (await events())[0]!.last_status === 429);
    const [event] = await events();
    expect(event!.status).toBe('pending');
    expect(Date.parse(event!.next_attempt_at) - started).toBeGreaterThanOrEqual(3_000_000);
    const [state] = await listDestinationStates(world.database.db, Date.now());
    expect(state!.last_error).toContain('Pipedrive DAILY limit reached');
  });

  it("Cloudflare's 403 HTML page pauses the destination with a message", async () => {
    createFields();
    const configured = await configure();
    pd.failNext(
      { path: /organizations/ },
      403,
      '<!DOCTYPE html><html><title>Attention Required! | Cloudflare</title></html>',
    );
    const state = await pausedOn(configured, 'company-reveal');
    expect(state!.last_error).toContain('Cloudflare');
    expect((await events())[0]!.status).toBe('pending');
  });

  it('stops at daily_token_share of the day and defers the rest, without a 429', async () => {
    await pd.close();
    pd = await startPipedriveStandIn({ indexLagMs: 0, burst: 1_000, searchBurst: 1_000, dailyTokens: 200 });
    createFields();
    const configured = await configure({ daily_token_share: 0.5 });
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await world.storeFixture('job-change-moved');
    await world.dispatcher([configured]);
    await until('the events are deferred by the share', async () =>
      (await events()).some((event) => event.last_error?.includes('DAILY_SHARE') ?? false),
    );
    // Never past the share: 100 of the day's 200 tokens.
    expect(pd.spent()).toBeLessThanOrEqual(100);
    expect(pd.calls.some((call) => call.status === 429)).toBe(false);
    expect((await events()).some((event) => event.status === 'pending')).toBe(true);
  });

  it('a dry run reads only (GETs and searches) and says per record what the real run would write', async () => {
    const keys = createFields();
    const typed = typedOrg(keys.domain, 'Acme (typed)', 'acme-robotics.com');
    const configured = await configure();
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    const destination = configured.create({
      database: world.database,
      logger: world.logs.logger,
      now: Date.now,
      fetch: globalThis.fetch,
    });
    expect(canDryRun(destination)).toBe(true);
    const report = await dryRunReplay({
      database: world.database,
      destination: destination as Parameters<typeof dryRunReplay>[0]['destination'],
      name: 'crm',
      selection: { pending: true },
      signal: AbortSignal.timeout(30_000),
    });
    expect(pd.calls.every((call) => call.method === 'GET')).toBe(true);
    expect(orgs().map((o) => o.id)).toEqual([typed.id]);
    expect(persons()).toHaveLength(0);
    const acme = report.records.find((r) => r.key === 'acme-robotics.com')!;
    expect(acme.action).toBe('update');
    expect(acme.changes.map((c) => c.property)).not.toContain('Name');
    expect(acme.changes.map((c) => c.property)).toContain('Website');
    const contacts = report.records.filter((r) => r.object === 'contacts');
    expect(contacts.length).toBeGreaterThan(0);
    expect(contacts.every((r) => r.action === 'create')).toBe(true);
  });
}

/**
 * The pipedrive destination end to end, against the Pipedrive stand-in (real HTTP on port 0) and a real
 * database (SQLite file or Postgres): organizations and persons created once and linked by org_id, no
 * duplicates and no search on a re-run (the key → id map: a GET, 1 token), adoption of what a sales team
 * typed by exact search, fill-empty keeping typed values, a moved person re-linked, a carried pd_id, an
 * ambiguous domain failed, a missing key field and a 401 pausing with one line, a burst 429 deferring.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canDryRun, setupOf } from '../../../src/destinations/crm/crm-destination.js';
import { dryRunReplay } from '../../../src/destinations/crm/dry-run-replay.js';
import { listDestinationStates, replayEvents } from '../../../src/destinations/destination-admin.js';
import { describeCounters } from '../../../src/destinations/destination-counters.js';
import type { ConfiguredDestination } from '../../../src/destinations/load-destinations.js';
import { syncDestinations } from '../../../src/destinations/outbox.js';
import { renderDestinations } from '../../../src/server/status-page/render-destinations.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { type PipedriveStandIn, startPipedriveStandIn } from '../../helpers/pipedrive/stand-in.js';
import { addTemplateFields } from '../../helpers/pipedrive/store.js';
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

  const createFields = () => {
    const { domain, linkedin } = addTemplateFields(pd.store);
    return { domain: domain!, linkedin: linkedin! };
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
    // New records: a search (20) per step of matching (an organization's domain, website host and name; a
    // person's key and full name at its organization), a hit read (1), a create (5), beside the two field
    // lists (40) read once.
    expect(tokens()).toBeLessThanOrEqual(40 + held.orgs * 66 + held.persons * 46);
    const recorded = await world.database.db.selectFrom('crm_record_ids').selectAll().execute();
    expect(recorded).toHaveLength(held.orgs + held.persons);
    // Counted: records, tokens spent (as the stand-in charged them) and the budget left.
    const [state] = await listDestinationStates(world.database.db, Date.now());
    expect(state!.counters).toMatchObject({
      companies_created: held.orgs,
      contacts_created: held.persons,
      tokens_spent: pd.spent(),
      daily_remaining: 30_000 - pd.spent(),
    });
    const line = describeCounters(state!.counters);
    expect(line).toContain(`${pd.spent()} tokens spent`);
    expect(line).toContain(`daily allowance left ${30_000 - pd.spent()}`);
    expect(renderDestinations([state!]).toString()).toContain(`${pd.spent()} tokens spent`);
    const metrics = await world.registry.metrics();
    expect(metrics).toContain(
      `hooksync_destination_counter{destination="crm",counter="tokens_spent"} ${pd.spent()}`,
    );
    expect(metrics).toContain(
      `hooksync_destination_counter{destination="crm",counter="companies_created"} ${held.orgs}`,
    );

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
    const [after] = await listDestinationStates(world.database.db, Date.now());
    expect(after!.counters.tokens_spent).toBe(pd.spent());
  });

  it('overwrite: a re-run of unchanged records costs one GET each and sends nothing (the org link not re-sent)', async () => {
    createFields();
    const configured = await configure({ write: 'overwrite' });
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    const held = { orgs: orgs().length, persons: persons().length };
    const sent = pd.calls.length;
    // Nothing more created or updated: every record of the re-run is a skip.
    const { counters } = (await listDestinationStates(world.database.db, Date.now()))[0]!;
    const writes = (of: Readonly<Record<string, number>>) =>
      ['companies_created', 'companies_updated', 'contacts_created', 'contacts_updated'].map(
        (name) => of[name] ?? 0,
      );
    const counted = writes(counters);
    await replayEvents(world.database.db, 'crm', {}, new Date().toISOString());
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(Array(3).fill('delivered'));
    const again = pd.calls.slice(sent);
    expect(again.filter((call) => call.method !== 'GET')).toEqual([]);
    expect(again.every((call) => /^\/api\/v2\/(persons|organizations)\/\d+/.test(call.path))).toBe(true);
    expect(again.reduce((sum, call) => sum + call.tokens, 0)).toBe(held.orgs + held.persons);
    expect({ orgs: orgs().length, persons: persons().length }).toEqual(held);
    const [state] = await listDestinationStates(world.database.db, Date.now());
    expect(writes(state!.counters)).toEqual(counted);
    expect(state!.counters.contacts_skipped).toBeGreaterThanOrEqual(held.persons);
  });

  it('fits values to the fields: a label sent as its option id, an unknown one left out with a warning, a Text value cut to 255', async () => {
    const keys = createFields();
    const configured = await configure();
    const long = 'Acme Robotics '.repeat(30).trim();
    const text = envelopeText('company-reveal')
      .text.replace('"Acme Robotics"', JSON.stringify(long))
      .replace('"Industrial Automation"', '"Software"');
    await world.store.store({ envelopeText: text, source: 'webhook' });
    const other = envelopeText('company-reveal')
      .text.replaceAll('acme-robotics.com', 'other-robotics.com')
      .replaceAll('5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e', '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8f');
    await world.store.store({ envelopeText: other, source: 'webhook' });
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(['delivered', 'delivered']);
    const acme = orgs().find((o) => o.custom_fields[keys.domain] === 'acme-robotics.com')!;
    expect(acme.name).toBe(long.slice(0, 255));
    expect(acme.industry).toBe(
      pd.store.field('organizations', 'Industry')!.options!.find((o) => o.label === 'Software')!.id,
    );
    const unknown = orgs().find((o) => o.custom_fields[keys.domain] === 'other-robotics.com')!;
    expect(unknown.industry).toBeUndefined();
    expect(world.logs.text()).toContain('\\"Industrial Automation\\" is not an option of Industry');
  });

  it('adopts what a sales team typed by exact search, keeping typed values (fill-empty), and creates no duplicate', async () => {
    const keys = createFields();
    const typed = typedOrg(keys.domain, 'Acme (typed)', 'acme-robotics.com');
    const typedPerson = pd.store.insert('persons', {
      name: 'Tobias (typed)',
      custom_fields: { [keys.linkedin]: 'https://www.linkedin.com/in/tobias-brandt' },
    });
    const typedMaria = pd.store.insert('persons', {
      name: 'Maria (typed)',
      emails: [{ value: 'Maria.Keller@globex.com', primary: true, label: 'work' }],
    });
    pd.store.settleIndex();
    const configured = await configure();
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await world.storeFixture('job-change-moved');
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(['delivered', 'delivered', 'delivered']);
    // Adopted by an exact e-mail search, the e-mail it holds kept (not sent again in another case).
    const marias = persons().filter((p) =>
      JSON.stringify(p.emails ?? [])
        .toLowerCase()
        .includes('maria.keller'),
    );
    expect(marias.map((p) => p.id)).toEqual([typedMaria.id]);
    expect(marias[0]!.emails).toHaveLength(1);
    const acmes = orgs().filter((o) => o.custom_fields[keys.domain] === 'acme-robotics.com');
    expect(acmes.map((o) => o.id)).toEqual([typed.id]);
    expect(acmes[0]!.name).toBe('Acme (typed)');
    expect(acmes[0]!.website).toBeDefined();
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

  for (const lost of [502, 'drop'] as const)
    it(`a create Pipedrive made but answered ${lost === 'drop' ? 'by dropping the connection' : `with ${lost}`} is not sent again: the lane's next attempt finds it by search`, async () => {
      const keys = createFields();
      // The lane tries again at once (50 ms), its search then seeing the create (the index lag ended).
      const configured = await configure({ retry: { schedule: ['50ms', '50ms'] } });
      pd.loseAnswerToNext({ method: 'POST', path: /organizations$/ }, lost, () => pd.store.settleIndex());
      await world.storeFixture('company-reveal');
      await deliverAll(configured);
      expect(orgs().map((o) => o.custom_fields[keys.domain])).toEqual(['acme-robotics.com']);
      const [event] = await events();
      expect([event!.status, event!.attempts]).toEqual(['delivered', 2]);
      expect(pd.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/organizations'))).toHaveLength(
        1,
      );
      const recorded = await world.database.db.selectFrom('crm_record_ids').selectAll().execute();
      expect(recorded.map((r) => r.record_id)).toContain(String(orgs()[0]!.id));
    });

  it("a create answered after the attempt's timeout is recorded: the retry updates it, never creates it again", async () => {
    const keys = createFields();
    const configured = await configure({
      timeout: '2s',
      retry: { schedule: ['50ms', '50ms', '50ms', '50ms'] },
    });
    // Pipedrive makes the organization at once and answers 5 s later, past the attempt's 2 s; its search
    // does not see it for a minute.
    pd.delayAnswerToNext({ method: 'POST', path: /organizations$/ }, 5_000);
    await world.storeFixture('company-reveal');
    await deliverAll(configured);
    expect(orgs().map((o) => o.custom_fields[keys.domain])).toEqual(['acme-robotics.com']);
    const [event] = await events();
    expect(event!.status).toBe('delivered');
    expect(pd.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/organizations'))).toHaveLength(1);
    const recorded = await world.database.db.selectFrom('crm_record_ids').selectAll().execute();
    expect(recorded.map((r) => r.record_id)).toContain(String(orgs()[0]!.id));
  });

  it("a person created before the batch's next create failed is recorded: the retry does not create it again", async () => {
    createFields();
    const configured = await configure({ retry: { schedule: ['50ms', '50ms'] } });
    // The search's two persons: Lena is created, then Tobias's create fails whole (the attempt is retried).
    pd.failNext({ method: 'POST', path: /persons$/, sent: /Tobias/ }, 500, { success: false, error: 'oops' });
    await world.storeFixture('search-contact');
    await deliverAll(configured);
    const names = pd.store
      .live('persons')
      .map((p) => String(p.name))
      .sort();
    expect(names).toEqual(['Lena Vogel', 'Tobias Brandt']);
    const [event] = await events();
    expect([event!.status, event!.attempts]).toEqual(['delivered', 2]);
    expect(pd.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/persons'))).toHaveLength(3);
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
    expect(event!.last_error).toContain('daily request budget exceeded');
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
    // Its tokens: what its reads spent, and 5 a planned write (Acme's update, two creates).
    const writes = report.records.filter((r) => r.action === 'create' || r.action === 'update').length;
    expect(writes).toBe(3);
    expect(report.tokens).toBe(pd.spent() + writes * 5);
    // At most what the real run spends (which finds Acme by the map in the second event, not by search).
    const before = pd.spent();
    await deliverAll(configured);
    expect((await events()).map((e) => e.status)).toEqual(['delivered', 'delivered']);
    expect(pd.spent() - before).toBeLessThanOrEqual(report.tokens!);
    expect(pd.spent() - before).toBeGreaterThan(report.tokens! - 2 * 20);
  });

  it('setup: --dry-run says which key fields it would create; setup creates them, adopts typed records into the map by exact match, reports an ambiguous one; the sync then searches none of them', async () => {
    addTemplateFields(pd.store, { keys: false });
    // One more field the template writes is missing: a note, not a problem.
    const organizationFields = pd.store.fields.organizations;
    organizationFields.splice(
      organizationFields.findIndex((f) => f.name === 'Hooksync ID'),
      1,
    );
    const configured = await configure();
    const destination = configured.create({
      database: world.database,
      logger: world.logs.logger,
      now: Date.now,
      fetch: globalThis.fetch,
    });
    const setUp = setupOf(destination)!;
    const signal = AbortSignal.timeout(30_000);
    const dry = await setUp({ dryRun: true, signal });
    expect(dry.properties).toEqual([
      { object: 'companies', name: 'Domain', unique: false },
      { object: 'contacts', name: 'LinkedIn URL', unique: false },
    ]);
    expect(dry.notes).toContain(
      'organization field "Hooksync ID" does not exist: its values are left out until it is created (a Text field)',
    );
    expect(pd.calls.every((call) => call.method === 'GET')).toBe(true);
    expect(pd.store.field('organizations', 'Domain')).toBeUndefined();
    const made = await setUp({ dryRun: false, signal });
    expect(made.properties).toHaveLength(2);
    expect(made.problems).toEqual([]);
    const domainKey = pd.store.field('organizations', 'Domain')!.key;
    const linkedinKey = pd.store.field('persons', 'LinkedIn URL')!.key;
    expect(pd.store.field('persons', 'LinkedIn URL')!.field_type).toBe('varchar');

    // What a sales team typed before the first sync.
    const acme = typedOrg(domainKey, 'Acme (typed)', 'acme-robotics.com');
    const initechA = typedOrg(domainKey, 'Initech A', 'initech.io');
    const initechB = typedOrg(domainKey, 'Initech B', 'initech.io');
    const maria = pd.store.insert('persons', {
      name: 'Maria (typed)',
      emails: [{ value: 'maria.keller@globex.com', primary: true, label: 'work' }],
    });
    const tobias = pd.store.insert('persons', {
      name: 'Tobias (typed)',
      custom_fields: { [linkedinKey]: 'https://www.linkedin.com/in/tobias-brandt' },
    });
    pd.store.settleIndex();
    await world.storeFixture('company-reveal');
    await world.storeFixture('search-contact');
    await world.storeFixture('job-change-moved');
    const spent = pd.spent();
    const adopted = await setUp({ dryRun: false, signal });
    expect(adopted.properties).toEqual([]);
    expect(adopted.adopted).toEqual([{ domain: 'acme-robotics.com', id: String(acme.id) }]);
    expect(adopted.ambiguous).toEqual([
      { domain: 'initech.io', ids: [String(initechA.id), String(initechB.id)].sort() },
    ]);
    expect(adopted.adoptedContacts).toEqual(
      expect.arrayContaining([
        { linkedinUrl: 'maria.keller@globex.com', id: String(maria.id) },
        { linkedinUrl: 'https://www.linkedin.com/in/tobias-brandt', id: String(tobias.id) },
      ]),
    );
    // Its tokens: the field lists (20 each), a search per key (20) and a GET per hit (1).
    expect(adopted.tokens).toBe(pd.spent() - spent);
    const recorded = await world.database.db.selectFrom('crm_record_ids').selectAll().execute();
    expect(recorded.map((r) => [r.object, r.key, r.record_id]).sort()).toEqual(
      expect.arrayContaining([
        ['companies', 'acme-robotics.com', String(acme.id)],
        ['contacts', 'maria.keller@globex.com', String(maria.id)],
      ]),
    );
    // Again: what the map knows is counted, not searched.
    const callsBefore = pd.calls.length;
    const again = await setUp({ dryRun: true, signal });
    expect(again.alreadyKeyed).toBe(1);
    expect(again.contactsAlreadyKeyed).toBe(adopted.adoptedContacts.length);
    const searchedAgain = pd.calls.slice(callsBefore).filter((call) => call.path.includes('/search'));
    expect(searchedAgain.some((call) => call.path.includes('acme-robotics.com'))).toBe(false);
    expect(searchedAgain.some((call) => call.path.includes('maria.keller'))).toBe(false);

    const sent = pd.calls.length;
    await deliverAll(configured);
    const after = pd.calls.slice(sent).filter((call) => call.path.includes('/search'));
    expect(after.some((call) => call.path.includes('acme-robotics.com'))).toBe(false);
    expect(after.some((call) => call.path.includes('maria.keller'))).toBe(false);
    expect(after.some((call) => call.path.includes('tobias-brandt'))).toBe(false);
    expect(
      orgs()
        .filter((o) => o.custom_fields[domainKey] === 'acme-robotics.com')
        .map((o) => o.id),
    ).toEqual([acme.id]);
    expect(
      persons().filter(
        (p) => p.name === 'Maria (typed)' || JSON.stringify(p.emails ?? []).includes('maria.keller'),
      ),
    ).toHaveLength(1);
    // Maria's new employer is ambiguous: her event fails, naming both, and nothing is guessed.
    const failed = (await events()).filter((e) => e.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.last_error).toContain('ambiguous');
  });
}

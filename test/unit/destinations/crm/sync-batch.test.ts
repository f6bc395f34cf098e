/**
 * The CRM core driven by a fake adapter (test/helpers/crm/fake-adapter.ts), once for every CRM: fill-empty
 * and overwrite, adoption by search and ambiguity, a batch refused whole halved, a CRM's trouble as the
 * lane's result, the dry run, and the CRMs' differences (a link call or a link in the write, a bulk path,
 * persons that are not contacts). Each CRM's suite keeps only what is its own.
 */
import { describe, expect, it } from 'vitest';
import type { CrmAdapter } from '../../../../src/destinations/crm/crm-adapter.js';
import { crmTroubleResult } from '../../../../src/destinations/crm/crm-trouble.js';
import type { RecordIdStore } from '../../../../src/destinations/crm/find-existing.js';
import type {
  CompanyRecord,
  ContactRecord,
  MappedBatch,
} from '../../../../src/destinations/crm/map-records.js';
import { type SyncSettings, syncBatch } from '../../../../src/destinations/crm/sync-batch.js';
import { CrmError } from '../../../../src/errors.js';
import { createFakeCrm, createMemoryIdStore } from '../../../helpers/crm/fake-adapter.js';

const KEYS = { companyKey: 'domain', contactKey: 'linkedin' };

function settings(write: SyncSettings['write'], more: Partial<SyncSettings> = {}): SyncSettings {
  return { keys: KEYS, write, fields: {}, movedFields: ['title', 'company'], ...more };
}

function company(key: string, properties: Record<string, string> = {}, more: Partial<CompanyRecord> = {}) {
  return {
    key,
    properties: { domain: key, ...properties },
    events: [0],
    employerOnly: false,
    ...more,
  } satisfies CompanyRecord;
}

function contact(email: string, properties: Record<string, string> = {}, more: Partial<ContactRecord> = {}) {
  return {
    idProperty: 'email',
    key: email,
    properties: { email, ...properties },
    status: '',
    companyKey: undefined,
    events: [0],
    email,
    linkedinUrl: undefined,
    updateOnly: false,
    change: false,
    primary: false,
    keyless: false,
    ...more,
  } satisfies ContactRecord;
}

function batch(parts: Partial<MappedBatch>): MappedBatch {
  return { companies: [], contacts: [], skipped: [], ...parts };
}

const sync = (
  adapter: CrmAdapter,
  mapped: MappedBatch,
  options: { settings?: SyncSettings; dryRun?: boolean; store?: RecordIdStore } = {},
) =>
  syncBatch({
    adapter,
    batch: mapped,
    settings: options.settings ?? settings('fill-empty'),
    definitions: async () => undefined,
    store: options.store,
    dryRun: options.dryRun ?? false,
    signal: new AbortController().signal,
  });

describe('the CRM core with a fake adapter', () => {
  it('fill-empty keeps what the CRM holds, fills what it lacks, and reads each record once (the write gets what was read)', async () => {
    const crm = createFakeCrm();
    crm.hold('contacts', { email: 'ann@acme.com', title: 'Typed by a rep' });
    const report = await sync(
      crm.adapter,
      batch({
        contacts: [
          contact('ann@acme.com', { title: 'CTO', city: 'Berlin' }),
          contact('bob@acme.com', { title: 'CEO' }, { events: [1] }),
        ],
      }),
    );
    expect(report.failedEvents.size).toBe(0);
    expect(crm.find('contacts', 'email', 'ann@acme.com')!.properties).toMatchObject({
      title: 'Typed by a rep',
      city: 'Berlin',
    });
    expect(crm.find('contacts', 'email', 'bob@acme.com')!.properties.title).toBe('CEO');
    expect(report.records.map((r) => [r.key, r.action])).toEqual([
      ['ann@acme.com', 'update'],
      ['bob@acme.com', 'create'],
    ]);
    // One read for both persons, and it reaches the write: the adapter needs no read of its own.
    expect(crm.count('read', 'contacts')).toBe(1);
    const [write] = crm.calls.filter((call) => call.method === 'write');
    expect(write!.requests!.map((request) => request.current?.id ?? request.current)).toEqual([
      crm.find('contacts', 'email', 'ann@acme.com')!.id,
      null,
    ]);
    expect(write!.requests![0]!.properties).toEqual({ city: 'Berlin' });
  });

  it('overwrite replaces what the CRM holds without reading, except fields configured otherwise (fill-empty, skip); nothing empty is sent', async () => {
    const crm = createFakeCrm();
    crm.hold('contacts', { email: 'ann@acme.com', title: 'Typed', city: 'Typed' });
    await sync(
      crm.adapter,
      batch({
        contacts: [contact('ann@acme.com', { title: 'CTO', city: 'Berlin', about: 'Ours', nickname: '' })],
      }),
      { settings: settings('overwrite', { fields: { city: 'fill-empty', about: 'skip' } }) },
    );
    expect(crm.find('contacts', 'email', 'ann@acme.com')!.properties).toMatchObject({
      title: 'CTO',
      city: 'Typed',
    });
    // A skipped field is never sent, nor is an empty value ("" would clear what the CRM holds).
    const [write] = crm.calls.filter((call) => call.method === 'write');
    expect(write!.requests![0]!.properties).toEqual({ title: 'CTO' });
    const plain = createFakeCrm();
    plain.hold('contacts', { email: 'ann@acme.com', title: 'Typed' });
    await sync(plain.adapter, batch({ contacts: [contact('ann@acme.com', { title: 'CTO' })] }), {
      settings: settings('overwrite'),
    });
    expect(plain.count('read')).toBe(0);
    expect(plain.find('contacts', 'email', 'ann@acme.com')!.properties.title).toBe('CTO');
  });

  it('a mover gets its new title and company even under fill-empty', async () => {
    const crm = createFakeCrm();
    crm.hold('contacts', { email: 'ann@acme.com', title: 'Engineer', company: 'Old' });
    await sync(
      crm.adapter,
      batch({
        contacts: [
          contact('ann@acme.com', { title: 'CTO', company: 'New', city: 'Berlin' }, { status: 'moved' }),
        ],
      }),
    );
    expect(crm.find('contacts', 'email', 'ann@acme.com')!.properties).toMatchObject({
      title: 'CTO',
      company: 'New',
      city: 'Berlin',
    });
  });

  it('adopts the one record a team typed (written by its id, key stamped, id recorded), and fails an ambiguous one naming both', async () => {
    const crm = createFakeCrm({ search: true });
    const typed = crm.hold('companies', { website: 'acme.com', name: 'Acme' });
    crm.hold('companies', { name: 'Initech' });
    crm.hold('companies', { name: 'Initech' });
    const store = createMemoryIdStore();
    const report = await sync(
      crm.adapter,
      batch({
        companies: [
          company('acme.com', { name: 'Acme' }),
          company('initech.io', { name: 'Initech' }, { name: 'Initech', events: [1] }),
        ],
      }),
      { store },
    );
    expect(crm.records.get(typed)!.properties.domain).toBe('acme.com');
    expect(report.records.find((r) => r.key === 'acme.com')).toMatchObject({
      action: 'update',
      adopted: true,
    });
    expect(store.ids.get('companies:acme.com')).toBe(typed);
    expect(report.failedEvents.get(1)).toMatch(/ambiguous: Fake holds 2 companies/);
    expect([...crm.records.values()].filter((r) => r.object === 'companies')).toHaveLength(3);
    // Found once, never searched again: the recorded id is written to.
    const searches = crm.count('search');
    await sync(crm.adapter, batch({ companies: [company('acme.com', { name: 'Acme' })] }), { store });
    expect(crm.count('search')).toBe(searches);
  });

  it('updates the very record a job carries, and a watch change never creates a record', async () => {
    const crm = createFakeCrm();
    const carried = crm.hold('contacts', { email: 'old@acme.com' });
    const report = await sync(
      crm.adapter,
      batch({
        contacts: [
          contact('ann@acme.com', { title: 'CTO' }, { carriedId: carried }),
          contact('nobody@acme.com', { title: 'CEO' }, { updateOnly: true, change: true, events: [1] }),
        ],
      }),
    );
    // Found by its id: updated there; its e-mail is a key the record holds already (fill-empty keeps it).
    expect(crm.records.get(carried)!.properties).toMatchObject({ title: 'CTO', email: 'old@acme.com' });
    expect(crm.find('contacts', 'email', 'ann@acme.com')).toBeUndefined();
    expect(report.failedEvents.get(1)).toMatch(/holds no record for it/);
    expect(crm.find('contacts', 'email', 'nobody@acme.com')).toBeUndefined();
  });

  it('halves a batch the CRM refuses whole until the record at fault stands alone', async () => {
    const crm = createFakeCrm({ writeBatch: 8 });
    const companies = Array.from({ length: 8 }, (_, at) =>
      company(`c${at}.com`, at === 5 ? { name: 'refuse:this' } : {}, { events: [at] }),
    );
    const report = await sync(crm.adapter, batch({ companies }), { settings: settings('overwrite') });
    expect([...report.failedEvents.keys()]).toEqual([5]);
    expect(report.failedEvents.get(5)).toMatch(/refused the batch whole/);
    // 8 → 4 (written) + 4 → 2 + 2 (written) → 1 (written) + 1 (failed): never the same batch twice.
    expect(crm.calls.filter((call) => call.method === 'write').map((call) => call.size)).toEqual([
      8, 4, 4, 2, 1, 1, 2,
    ]);
    expect([...crm.records.values()]).toHaveLength(7);
  });

  it("a CRM's trouble is the batch's, never a record's: a pause, a wait and a retry reach the lane as such", async () => {
    const cases = [
      [new CrmError(401, { kind: 'pause', error: 'token refused' }), 'pause'],
      [
        new CrmError(429, { kind: 'wait', policy: 'TEN_SECONDLY', error: 'slow down', waitMs: 10_000 }),
        'wait',
      ],
      [new CrmError(503, { kind: 'retry', error: 'down' }), 'retry'],
    ] as const;
    for (const [error, outcome] of cases) {
      const crm = createFakeCrm();
      crm.trouble(error);
      const thrown = await sync(crm.adapter, batch({ companies: [company('acme.com')] }), {
        settings: settings('overwrite'),
      }).catch((caught: unknown) => caught);
      expect(thrown).toBe(error);
      expect(crmTroubleResult(error)).toMatchObject({ outcome, status: error.status });
    }
    // However long the CRM asks to wait, the lane waits a day at most.
    const long = new CrmError(429, { kind: 'wait', policy: 'DAILY', error: 'tomorrow', waitMs: 9e9 });
    expect(crmTroubleResult(long)).toMatchObject({ outcome: 'wait', waitMs: 86_400_000 });
  });

  it('a dry run reads only and says per record what the real run would write, field by field, with its calls', async () => {
    const crm = createFakeCrm({ links: 'call', writeBatch: 2 });
    crm.hold('companies', { domain: 'acme.com', name: 'Acme' });
    const report = await sync(
      crm.adapter,
      batch({
        companies: [company('acme.com', { name: 'Acme Robotics', city: 'Berlin' }), company('new.io')],
        contacts: [
          contact('ann@acme.com', {}, { companyKey: 'acme.com' }),
          contact('bob@new.io', {}, { companyKey: 'new.io' }),
          contact('eve@new.io', {}, { companyKey: 'new.io' }),
        ],
      }),
      { dryRun: true },
    );
    expect(crm.count('write') + crm.count('link')).toBe(0);
    expect(report.records.find((r) => r.key === 'acme.com')).toMatchObject({
      action: 'update',
      changes: [{ property: 'city', from: undefined, to: 'Berlin' }],
    });
    expect(report.records.filter((r) => r.action === 'create').map((r) => r.key)).toEqual([
      'new.io',
      'ann@acme.com',
      'bob@new.io',
      'eve@new.io',
    ]);
    // The calls the real run would make: the companies' read (fill-empty: the contacts have nothing but
    // their key to fill, so the real run reads none), 1 company write, 2 contact writes, 2 link calls.
    expect(report).toMatchObject({ associations: 3, calls: 6 });
  });

  it("links by a call of its own after both are written, or in the contact's own write", async () => {
    const separate = createFakeCrm({ links: 'call' });
    const mapped = () =>
      batch({
        companies: [company('acme.com')],
        contacts: [contact('ann@acme.com', {}, { companyKey: 'acme.com', primary: true })],
      });
    const report = await sync(separate.adapter, mapped(), { settings: settings('overwrite') });
    const acme = separate.find('companies', 'domain', 'acme.com')!.id;
    expect(separate.links).toEqual([
      { contactId: separate.find('contacts', 'email', 'ann@acme.com')!.id, companyId: acme, primary: true },
    ]);
    expect(report).toMatchObject({ associations: 1, calls: 3 });
    const inWrite = createFakeCrm({ links: 'in-write' });
    const written = await sync(inWrite.adapter, mapped(), { settings: settings('overwrite') });
    expect(inWrite.find('contacts', 'email', 'ann@acme.com')!.properties.company).toBe('acme.com');
    const contactWrite = inWrite.calls.find((call) => call.object === 'contacts')!;
    expect(contactWrite.requests![0]!.company).toEqual({
      key: 'acme.com',
      id: inWrite.find('companies', 'domain', 'acme.com')!.id,
    });
    expect(written).toMatchObject({ associations: 1, calls: 2 });
  });

  it("hands records above the bulk line to one write whole; a dry run counts the bulk job's calls", async () => {
    const crm = createFakeCrm({ writeBatch: 2, bulk: { above: 3, calls: 5 } });
    const companies = (n: number) => Array.from({ length: n }, (_, at) => company(`c${at}.com`));
    await sync(crm.adapter, batch({ companies: companies(4) }), { settings: settings('overwrite') });
    expect(crm.calls.map((call) => call.size)).toEqual([4]);
    const small = createFakeCrm({ writeBatch: 2, bulk: { above: 3, calls: 5 } });
    await sync(small.adapter, batch({ companies: companies(3) }), { settings: settings('overwrite') });
    expect(small.calls.map((call) => call.size)).toEqual([2, 1]);
    const fresh = createFakeCrm({ writeBatch: 2, bulk: { above: 3, calls: 5 } });
    const dry = await sync(fresh.adapter, batch({ companies: companies(4) }), {
      dryRun: true,
      settings: settings('overwrite'),
    });
    expect(fresh.count('write')).toBe(0);
    expect(dry.calls).toBe(5);
  });

  it("where persons without a held company are not contacts, an employer is looked up, never created, except a held mover's", async () => {
    const crm = createFakeCrm({ contactsOnly: true });
    crm.hold('companies', { domain: 'held.com' });
    crm.hold('contacts', { email: 'mo@old.com' });
    const report = await sync(
      crm.adapter,
      batch({
        companies: [
          company('held.com', {}, { employerOnly: true }),
          company('absent.com', {}, { employerOnly: true, events: [1] }),
          company('new-job.com', {}, { employerOnly: true, events: [2] }),
        ],
        contacts: [
          contact('ann@held.com', {}, { companyKey: 'held.com' }),
          contact('bob@absent.com', {}, { companyKey: 'absent.com', events: [1] }),
          contact('mo@old.com', {}, { companyKey: 'new-job.com', status: 'moved', events: [2] }),
        ],
      }),
      { settings: settings('overwrite') },
    );
    expect(report.failedEvents.size).toBe(0);
    expect(crm.find('companies', 'domain', 'absent.com')).toBeUndefined();
    expect(crm.find('companies', 'domain', 'new-job.com')).toBeDefined();
    expect(crm.find('contacts', 'email', 'ann@held.com')!.properties.company).toBe('held.com');
    expect(crm.find('contacts', 'email', 'bob@absent.com')!.properties.company).toBeUndefined();
    expect(crm.find('contacts', 'email', 'mo@old.com')!.properties.company).toBe('new-job.com');
  });

  it('reports a row without a key as skipped, and fails the event of a refused one', async () => {
    const crm = createFakeCrm();
    const report = await sync(
      crm.adapter,
      batch({
        skipped: [
          { object: 'contacts', event: 0, reason: 'no e-mail and no LinkedIn URL' },
          { object: 'contacts', event: 1, reason: 'its job is gone', fails: true },
        ],
      }),
    );
    expect(report.records.map((r) => r.action)).toEqual(['skip', 'failed']);
    expect([...report.failedEvents]).toEqual([[1, 'contacts: its job is gone']]);
    expect(crm.calls).toEqual([]);
  });
});

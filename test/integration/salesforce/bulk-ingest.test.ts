/**
 * Bulk API 2.0 upserts against the stand-in, the job recorded in a real SQLite database: results matched
 * back by key (not by row), per-record failures with Salesforce's words, a locked row answered `retry`, the
 * Account named by its key, and the same upload attempted again after an interrupted poll resuming that job
 * instead of uploading its rows a second time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bulkCsv, bulkJobStore, writeBulk } from '../../../src/destinations/salesforce/bulk-ingest.js';
import type {
  CollectionsWrite,
  RecordWrite,
} from '../../../src/destinations/salesforce/write-collections.js';
import { CrmError } from '../../../src/errors.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { until } from '../destinations/destinations-context.js';
import { standInsClosedAfterEach } from '../salesforce-stand-in/http.js';
import { clientFor } from './client-for.js';

const start = standInsClosedAfterEach();
const signal = () => AbortSignal.timeout(20_000);
const opened: Array<{ database: HooksyncDatabase; dir: string }> = [];

afterEach(async () => {
  for (const { database, dir } of opened.splice(0)) {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function openStore() {
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-bulk-'));
  const database = await openMigratedDatabase(join(dir, 'hooksync.db'));
  opened.push({ database, dir });
  const rows = () => database.db.selectFrom('salesforce_bulk_jobs').selectAll().execute();
  return { store: bulkJobStore(database.db, 'sf', Date.now), rows };
}

const account = (key: string, fields: Record<string, string | number> = {}): RecordWrite => ({
  key,
  id: undefined,
  fields: { Name: key, ...fields },
});

describe('writeBulk', () => {
  it('upserts in one job, matches results by key, and fails or retries only the records at fault', async () => {
    const sf = await start({ setUp: true });
    const held = sf.seed('Account', { Name: 'Held', Hooksync_Company_Id__c: 'b.com' });
    sf.failRecords({ where: { Hooksync_Company_Id__c: 'd.com' }, times: 1 });
    const { store, rows } = await openStore();
    const records = [
      account('a.com', { NumberOfEmployees: 10 }),
      account('b.com'),
      account('c.com', { NumberOfEmployees: 'many' }),
      account('d.com'),
    ];
    const outcomes = await writeBulk(
      clientFor(sf, { maxShare: 1 }).client,
      store,
      { object: 'Account', keyField: 'Hooksync_Company_Id__c', records },
      signal(),
      [0],
    );
    expect(outcomes[0]).toMatchObject({ ok: true, created: true });
    expect(outcomes[1]).toEqual({ ok: true, id: held, created: false });
    expect(outcomes[2]).toMatchObject({
      ok: false,
      retry: false,
      error: expect.stringContaining('INVALID_TYPE_ON_FIELD_IN_RECORD'),
    });
    expect(outcomes[3]).toMatchObject({
      ok: false,
      retry: true,
      error: expect.stringContaining('UNABLE_TO_LOCK_ROW'),
    });
    expect(sf.bulkJobs()).toHaveLength(1);
    expect(sf.bulkJobs()[0]).toMatchObject({ state: 'JobComplete', object: 'Account', operation: 'upsert' });
    expect(sf.calls().filter((c) => c.path.includes('/composite/'))).toEqual([]);
    expect(await rows()).toEqual([]);
  });

  it('links Contacts to their Account by its key in an Account.<key> column', async () => {
    const sf = await start({ setUp: true });
    const acme = sf.seed('Account', { Name: 'Acme', Hooksync_Company_Id__c: 'acme.com' });
    const { store } = await openStore();
    const parent = { relationship: 'Account', keyField: 'Hooksync_Company_Id__c', key: 'acme.com' };
    const write: CollectionsWrite = {
      object: 'Contact',
      keyField: 'Hooksync_Person_Id__c',
      records: [
        { key: 'p1', id: undefined, fields: { LastName: 'One', Title: 'CTO' }, parent },
        { key: 'p2', id: undefined, fields: { LastName: 'Two' }, parent },
      ],
    };
    expect(bulkCsv(write).split('\n')[0]).toBe(
      'Hooksync_Person_Id__c,LastName,Title,Account.Hooksync_Company_Id__c',
    );
    const outcomes = await writeBulk(clientFor(sf, { maxShare: 1 }).client, store, write, signal(), [0]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(sf.records('Contact').map((c) => [c.Hooksync_Person_Id__c, c.AccountId, c.Title ?? null])).toEqual(
      [
        ['p1', acme, 'CTO'],
        ['p2', acme, null],
      ],
    );
  });

  it('resumes polling the job of the same upload after an interrupted attempt, uploading nothing again', async () => {
    const sf = await start({ setUp: true, bulkPollsInProgress: 2 });
    const { store, rows } = await openStore();
    const { client } = clientFor(sf, { maxShare: 1 });
    const records = ['a.com', 'b.com', 'c.com'].map((key) => account(key));
    const write = { object: 'Account' as const, keyField: 'Hooksync_Company_Id__c', records };
    const interrupted = new AbortController();
    // The first attempt waits long between polls; it is cut (a timeout, a restart) once the job runs.
    const first = writeBulk(client, store, write, interrupted.signal, [600_000]);
    await until('the job was polled once', () =>
      sf.calls().some((c) => c.method === 'GET' && /\/jobs\/ingest\/[^/]+$/.test(c.path)),
    );
    interrupted.abort();
    const error = await first.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).trouble.kind).toBe('retry');
    expect(await rows()).toHaveLength(1);
    expect(sf.records('Account')).toEqual([]);

    const outcomes = await writeBulk(client, store, write, signal(), [0]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true]);
    expect(sf.bulkJobs()).toHaveLength(1);
    const uploads = sf.calls().filter((c) => c.method === 'PUT' && c.path.endsWith('/batches'));
    expect(uploads).toHaveLength(1);
    expect(sf.records('Account')).toHaveLength(3);
    expect(await rows()).toEqual([]);
  });

  it('a job Salesforce fails whole is a fail of the write (the core then splits it), and is forgotten', async () => {
    const sf = await start({ setUp: true });
    const { store, rows } = await openStore();
    const error = await writeBulk(
      clientFor(sf, { maxShare: 1 }).client,
      store,
      {
        object: 'Account',
        keyField: 'Hooksync_Company_Id__c',
        records: [account('a.com', { No_Such_Field__c: 'x' })],
      },
      signal(),
      [0],
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).trouble.kind).toBe('fail');
    expect((error as CrmError).message).toContain('Field name not found : No_Such_Field__c');
    expect(await rows()).toEqual([]);
  });
});

/**
 * Salesforce as a CRM adapter of the core (`crm/crm-adapter.ts`): companies are Accounts upserted by
 * `account_key`; persons are Contacts or Leads by `person_key`, the one that already holds the key updated
 * where it is, a net-new one routed by `new_persons` (a Contact under its Account when the core found or
 * wrote the Account, else a Lead); a Contact names its Account by the Account's key in its own write
 * (`links: 'in-write'`). Reads are SOQL by key, search SOQL by what a team types (search-org.ts), writes sObject Collections (see write-collections.ts); a locked
 * record (UNABLE_TO_LOCK_ROW) sends the batch back to the lane's retry schedule (keyed writes converge).
 */
import { CrmError } from '../../errors.js';
import type { FieldDefinition } from '../crm/check-values.js';
import type { CrmAdapter, CrmObject, HeldRecord, WriteRequest, WriteResult } from '../crm/crm-adapter.js';
import { mapInParallel } from '../crm/in-chunks.js';
import { BULK_JOB_CALLS, type BulkJobStore, writeBulk } from './bulk-ingest.js';
import { asLead, type LeadFields } from './lead-fields.js';
import { describeObject, fieldDefinitionsOf } from './org-schema.js';
import { type NewPersons, routePerson } from './route-persons.js';
import { limitsSchema } from './salesforce-answer.js';
import type { SalesforceClient } from './salesforce-client.js';
import { searchOrg } from './search-org.js';
import { keyQueries, queryAll } from './soql.js';
import {
  COLLECTION_LIMIT,
  type CollectionsWrite,
  type RecordOutcome,
  type RecordWrite,
  writeCollections,
} from './write-collections.js';

/**
 * Keys looked up per read: the SOQL chunks keep each URI under 2,000 characters on their own (some 40 to 80
 * keys a query), and a read's queries go {@link READ_CONCURRENCY} at a time (Salesforce limits long-running
 * requests, not short ones), so that fill-empty's reads cost less time than its writes.
 */
export const SALESFORCE_READ_BATCH = 800;
/** Queries of one read in flight at once. */
export const READ_CONCURRENCY = 4;

/** What the adapter is built from. */
export interface SalesforceAdapterOptions {
  readonly client: SalesforceClient;
  readonly accountKey: string;
  readonly personKey: string;
  readonly newPersons: NewPersons;
  /** The Contact field holding a LinkedIn profile URL, searched by at sync time; undefined: not searched. */
  readonly linkedinField?: string | undefined;
  /** The Contact ↔ Lead field correspondence (the salesforce-contacts and -leads templates). */
  readonly leadFields: () => Promise<LeadFields>;
  /** More than `threshold` records of one object keyed (no Id) in a write go in a Bulk API 2.0 job. */
  readonly bulk?:
    | {
        readonly threshold: number;
        readonly store: BulkJobStore;
        readonly pollDelaysMs?: readonly number[] | undefined;
      }
    | undefined;
}

type Held = { readonly object: 'Contact' | 'Lead'; readonly record: HeldRecord };

/** A person's record by its Id: the prefix tells (003 Contact, 00Q Lead). */
const objectOf = (id: string): Held['object'] => (id.startsWith('00Q') ? 'Lead' : 'Contact');

function text(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Creates the adapter. */
export function createSalesforceAdapter(options: SalesforceAdapterOptions): CrmAdapter {
  const { client, accountKey, personKey } = options;

  const query = async (
    object: string,
    keyField: string,
    keys: readonly string[],
    fields: readonly string[],
    signal: AbortSignal,
  ) => {
    const found = new Map<string, HeldRecord>();
    const wanted = new Map(keys.map((key) => [key.toLowerCase(), key]));
    const queries = keyQueries({ base: client.base, object, fields, keyField, keys });
    const answers = await mapInParallel(queries, READ_CONCURRENCY, (soql) =>
      // A key is unique (External ID): a query finds one record a key at most.
      queryAll(client, soql, signal, keys.length),
    );
    for (const rows of answers) {
      for (const row of rows) {
        // Keys match case-insensitively (§2): answer under the spelling the core asked for.
        const key = wanted.get(String(row[keyField] ?? '').toLowerCase());
        if (key === undefined || typeof row.Id !== 'string') continue;
        const properties: Record<string, string | null> = {};
        for (const field of fields) properties[field] = text(row[field]);
        found.set(key, { id: row.Id, properties });
      }
    }
    return found;
  };

  /**
   * Where each person key (or, by `keyField` `Id`, each record id) lives: a Contact first, then a Lead
   * (fields read named as the Contact's).
   */
  const findPersons = async (
    keys: readonly string[],
    fields: readonly string[],
    signal: AbortSignal,
    keyField: string = personKey,
  ) => {
    const lead = await options.leadFields();
    const contacts = await query('Contact', keyField, keys, fields, signal);
    const rest = keys.filter((key) => !contacts.has(key));
    const leadNames = fields.flatMap((field) => {
      const name = lead.toLead.get(field);
      return name === undefined || name === personKey ? [] : [name];
    });
    const leads =
      rest.length === 0
        ? new Map<string, HeldRecord>()
        : await query('Lead', keyField, rest, leadNames, signal);
    const held = new Map<string, Held>();
    for (const [key, record] of contacts) held.set(key, { object: 'Contact', record });
    for (const [key, record] of leads) {
      const properties: Record<string, string | null> = {};
      for (const [name, value] of Object.entries(record.properties))
        properties[lead.toContact.get(name) ?? name] = value;
      held.set(key, { object: 'Lead', record: { id: record.id, properties } });
    }
    return held;
  };

  /** Collections for records known by Id and for a few; one Bulk job for the keyed ones above the line. */
  const send = async (write: CollectionsWrite, signal: AbortSignal): Promise<RecordOutcome[]> => {
    const { bulk } = options;
    const keyed = write.records.filter((record) => record.id === undefined);
    if (bulk === undefined || keyed.length <= bulk.threshold) return writeCollections(client, write, signal);
    const byId = write.records.filter((record) => record.id !== undefined);
    const bulkOutcomes = await writeBulk(
      client,
      bulk.store,
      { ...write, records: keyed },
      signal,
      bulk.pollDelaysMs,
    );
    const idOutcomes =
      byId.length === 0 ? [] : await writeCollections(client, { ...write, records: byId }, signal);
    const [fromBulk, fromIds] = [bulkOutcomes.values(), idOutcomes.values()];
    return write.records.map((record) => (record.id === undefined ? fromBulk : fromIds).next().value!);
  };

  const outcomesOf = (results: readonly RecordOutcome[]): WriteResult[] => {
    const locked = results.find((r) => !r.ok && r.retry);
    if (locked !== undefined && !locked.ok) throw new CrmError(null, { kind: 'retry', error: locked.error });
    return results.map((r) =>
      r.ok ? { ok: true, id: r.id, created: r.created } : { ok: false, error: r.error },
    );
  };

  const withoutKey = (properties: Readonly<Record<string, string>>, key: string) => {
    const { [key]: _key, ...rest } = properties;
    return rest;
  };

  const writePersons = async (
    requests: readonly WriteRequest[],
    signal: AbortSignal,
  ): Promise<WriteResult[]> => {
    const lead = await options.leadFields();
    // Where a person lives: what the core read (a Contact's or a Lead's Id), else found here by key.
    const held = new Map<string, Held>();
    for (const request of requests)
      if (request.id === undefined && request.current != null)
        held.set(request.key, { object: objectOf(request.current.id), record: request.current });
    const unknown = requests.filter((r) => r.id === undefined && r.current === undefined).map((r) => r.key);
    if (unknown.length > 0)
      for (const [key, found] of await findPersons(unknown, [], signal)) held.set(key, found);
    const groups = {
      Contact: [] as Array<{ at: number; write: RecordWrite }>,
      Lead: [] as Array<{ at: number; write: RecordWrite }>,
    };
    requests.forEach((request, at) => {
      const found = held.get(request.key);
      const knownObject = request.id === undefined ? undefined : objectOf(request.id);
      const route = routePerson({
        policy: options.newPersons,
        contactId:
          knownObject === 'Contact' ? request.id : found?.object === 'Contact' ? found.record.id : undefined,
        leadId: knownObject === 'Lead' ? request.id : found?.object === 'Lead' ? found.record.id : undefined,
        accountExists: request.company !== undefined,
      });
      const properties = withoutKey(request.properties, personKey);
      if (route.object === 'Contact') {
        groups.Contact.push({
          at,
          write: {
            key: request.key,
            id: route.id,
            fields: properties,
            parent:
              route.linkAccount && request.company !== undefined
                ? { relationship: 'Account', keyField: accountKey, key: request.company.key }
                : undefined,
          },
        });
      } else {
        const fields: Record<string, string> = asLead(lead, properties);
        delete fields[personKey];
        if (route.id === undefined)
          for (const [name, value] of Object.entries(lead.defaults)) fields[name] ??= value;
        groups.Lead.push({ at, write: { key: request.key, id: route.id, fields } });
      }
    });
    const results: WriteResult[] = new Array(requests.length);
    for (const object of ['Contact', 'Lead'] as const) {
      const group = groups[object];
      if (group.length === 0) continue;
      const written = outcomesOf(
        await send({ object, keyField: personKey, records: group.map((g) => g.write) }, signal),
      );
      group.forEach(({ at }, index) => {
        results[at] = written[index]!;
      });
    }
    return results;
  };

  return {
    name: 'Salesforce',
    limits: { writeBatch: COLLECTION_LIMIT, readBatch: SALESFORCE_READ_BATCH },
    ...(options.bulk === undefined
      ? {}
      : {
          bulkCalls: (records: number) => (records > options.bulk!.threshold ? BULK_JOB_CALLS : undefined),
        }),
    // A person's employer is created only when every new person is to be a Contact; otherwise looked up.
    // A Contact's Id starts 003 (a Lead's 00Q): a mover held as a Contact is moved to its new Account.
    ...(options.newPersons === 'contact' ? {} : { isContact: (id: string) => id.startsWith('003') }),
    search: searchOrg(client, { accountKey, personKey, linkedin: options.linkedinField }),
    async read(object: CrmObject, idProperty, keys, properties, signal) {
      // No idProperty: `keys` are record Ids (a carried or adopted record, read for fill-empty).
      const byId = idProperty === undefined;
      if (object === 'companies')
        return query(
          'Account',
          byId ? 'Id' : accountKey,
          keys,
          properties.filter((p) => p !== accountKey),
          signal,
        );
      const held = await findPersons(
        keys,
        properties.filter((p) => p !== personKey),
        signal,
        byId ? 'Id' : personKey,
      );
      return new Map([...held].map(([key, { record }]) => [key, record]));
    },
    async write(object: CrmObject, requests, signal) {
      if (object === 'contacts') return writePersons(requests, signal);
      const records = requests.map((request) => ({
        key: request.key,
        id: request.id,
        fields: withoutKey(request.properties, accountKey),
      }));
      return outcomesOf(await send({ object: 'Account', keyField: accountKey, records }, signal));
    },
    async fieldDefinitions(object, signal): Promise<ReadonlyMap<string, FieldDefinition>> {
      return fieldDefinitionsOf(
        await describeObject(client, object === 'companies' ? 'Account' : 'Contact', signal),
      );
    },
    async check(signal) {
      const limits = await client.json(limitsSchema, { method: 'GET', path: 'limits' }, signal);
      const { Max, Remaining } = limits.DailyApiRequests;
      return `read /limits: ${Remaining} of the org's ${Max} daily API calls left`;
    },
  };
}

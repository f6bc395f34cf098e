/**
 * A CRM adapter held in memory (crm/crm-adapter.ts), to drive the CRM core once for every CRM: records by
 * id with their properties, reads by a key field or by id, writes by id or by key (upsert), search by
 * what a team types, and, as a CRM chooses, a link call of its own (`link`), a bulk path (`bulkCalls`) and
 * persons that are not contacts (`isContact`). Every call is counted; a value `refuse:` makes the CRM
 * refuse the whole write call (as HubSpot's e-mail-keyed batch does); `trouble` throws from the next call.
 */
import type {
  CompanyLink,
  CrmAdapter,
  CrmObject,
  HeldRecord,
  SearchCandidate,
  SearchField,
  WriteRequest,
  WriteResult,
} from '../../../src/destinations/crm/crm-adapter.js';
import type { RecordIdStore } from '../../../src/destinations/crm/find-existing.js';
import { CrmError } from '../../../src/errors.js';

/** A record the fake CRM holds. */
export interface FakeRecord {
  readonly id: string;
  readonly object: CrmObject;
  properties: Record<string, string>;
}

/** One call the core made, with what it named. */
export interface FakeCall {
  readonly method: 'read' | 'write' | 'search' | 'link';
  readonly object?: CrmObject;
  readonly size: number;
  readonly requests?: readonly WriteRequest[];
}

/** Which of the CRMs' differences the fake takes on. */
export interface FakeAdapterOptions {
  readonly writeBatch?: number;
  readonly readBatch?: number;
  /** A link call of its own (HubSpot); without it the link is `WriteRequest.company` (Salesforce, Pipedrive). */
  readonly links?: 'call' | 'in-write';
  /** A bulk path above this many records, costing `calls`. */
  readonly bulk?: { readonly above: number; readonly calls: number };
  /** Ids starting `c` are contacts, others not (Salesforce's Contacts and Leads). */
  readonly contactsOnly?: boolean;
  /** Search by what a team types (adoption). */
  readonly search?: boolean;
}

/** The fake adapter and what it holds. */
export interface FakeCrm {
  readonly adapter: CrmAdapter;
  readonly records: Map<string, FakeRecord>;
  readonly calls: FakeCall[];
  readonly links: CompanyLink[];
  /** Puts a record there as a sales team would type it; its id. */
  hold(object: CrmObject, properties: Record<string, string>, id?: string): string;
  /** The record holding `value` in `property`. */
  find(object: CrmObject, property: string, value: string): FakeRecord | undefined;
  /** The next call throws this. */
  trouble(error: CrmError): void;
  count(method: FakeCall['method'], object?: CrmObject): number;
}

/** Creates a fake CRM. */
export function createFakeCrm(options: FakeAdapterOptions = {}): FakeCrm {
  const records = new Map<string, FakeRecord>();
  const calls: FakeCall[] = [];
  const links: CompanyLink[] = [];
  let next = 1;
  let pending: CrmError | undefined;
  const take = () => {
    const error = pending;
    pending = undefined;
    if (error !== undefined) throw error;
  };
  const find = (object: CrmObject, property: string, value: string) =>
    [...records.values()].find(
      (record) =>
        record.object === object && record.properties[property]?.toLowerCase() === value.toLowerCase(),
    );
  const hold = (object: CrmObject, properties: Record<string, string>, id?: string) => {
    const prefix = object === 'companies' ? 'a' : 'c';
    const recordId = id ?? `${prefix}${next++}`;
    records.set(recordId, { id: recordId, object, properties: { ...properties } });
    return recordId;
  };
  const view = (record: FakeRecord, wanted: readonly string[]): HeldRecord => ({
    id: record.id,
    properties: Object.fromEntries(wanted.map((name) => [name, record.properties[name] ?? null])),
  });
  const writeOne = (object: CrmObject, request: WriteRequest): WriteResult => {
    const company: Record<string, string> =
      request.company === undefined ? {} : { company: request.company.key };
    if (request.id !== undefined) {
      const record = records.get(request.id);
      if (record === undefined) return { ok: false, error: `no record ${request.id}` };
      Object.assign(record.properties, request.properties, company);
      return { ok: true, id: record.id, created: false };
    }
    const held = find(object, request.idProperty, request.key);
    if (held !== undefined) {
      Object.assign(held.properties, request.properties, company);
      return { ok: true, id: held.id, created: false };
    }
    const id = hold(object, { ...request.properties, [request.idProperty]: request.key, ...company });
    return { ok: true, id, created: true };
  };
  const adapter: CrmAdapter = {
    name: 'Fake',
    limits: { writeBatch: options.writeBatch ?? 10, readBatch: options.readBatch ?? 10 },
    async read(object, idProperty, keys, wanted) {
      take();
      calls.push({ method: 'read', object, size: keys.length });
      const found = new Map<string, HeldRecord>();
      for (const key of keys) {
        const record = idProperty === undefined ? records.get(key) : find(object, idProperty, key);
        if (record !== undefined && record.object === object) found.set(key, view(record, wanted));
      }
      return found;
    },
    async write(object, requests) {
      take();
      calls.push({ method: 'write', object, size: requests.length, requests });
      const refused = requests.some((request) =>
        Object.values(request.properties).some((value) => value.startsWith('refuse:')),
      );
      if (refused) throw new CrmError(400, { kind: 'fail', error: 'Fake refused the batch whole' });
      return requests.map((request) => writeOne(object, request));
    },
    async fieldDefinitions() {
      return undefined;
    },
    async check() {
      return 'fake';
    },
    ...(options.search === true
      ? {
          async search(
            object: CrmObject,
            field: SearchField,
            values: readonly string[],
            keyProperty: string,
          ) {
            take();
            calls.push({ method: 'search', object, size: values.length });
            const property = field === 'fullName' ? 'name' : field;
            const found = new Map<string, SearchCandidate[]>();
            for (const value of values) {
              const hits = [...records.values()].filter(
                (record) =>
                  record.object === object &&
                  record.properties[property]?.toLowerCase() === value.replace('\t', ' ').toLowerCase(),
              );
              if (hits.length > 0)
                found.set(
                  value,
                  hits.map((record) => ({
                    id: record.id,
                    key: record.properties[keyProperty],
                    domain: record.properties.domain,
                  })),
                );
            }
            return found;
          },
        }
      : {}),
    ...(options.links === 'call'
      ? {
          async link(asked: readonly CompanyLink[]) {
            take();
            calls.push({ method: 'link', size: asked.length });
            links.push(...asked);
            return asked.map(() => undefined);
          },
        }
      : {}),
    ...(options.bulk === undefined
      ? {}
      : {
          bulkCalls: (count: number) => (count > options.bulk!.above ? options.bulk!.calls : undefined),
        }),
    ...(options.contactsOnly === true ? { isContact: (id: string) => id.startsWith('c') } : {}),
  };
  return {
    adapter,
    records,
    calls,
    links,
    hold,
    find,
    trouble(error) {
      pending = error;
    },
    count: (method, object) =>
      calls.filter((call) => call.method === method && (object === undefined || call.object === object))
        .length,
  };
}

/** A key → id map in memory (the destination's `crm_record_ids`). */
export function createMemoryIdStore(): RecordIdStore & { readonly ids: Map<string, string> } {
  const ids = new Map<string, string>();
  return {
    ids,
    async lookUp(object, keys) {
      const found = new Map<string, string>();
      for (const key of keys) {
        const id = ids.get(`${object}:${key}`);
        if (id !== undefined) found.set(key, id);
      }
      return found;
    },
    async record(object, found) {
      for (const [key, id] of found) ids.set(`${object}:${key}`, id);
    },
  };
}

/**
 * The stand-in portal's state: records of contacts and companies with their property values, property
 * definitions, and contact→company associations. Values are strings; `""` removes a value (§1: "cleared").
 */
import type { StandInOwner } from './owners.js';
import {
  type CrmObjectType,
  defaultDefinitions,
  type PropertyDefinition,
  type PropertyDefinitionInput,
  toDefinition,
} from './properties.js';

/** One version of a record's values, kept so that search can lag behind writes (§2, eventual consistency). */
interface RecordVersion {
  atMs: number;
  values: Record<string, string>;
}

/** A record as stored. */
export interface StoredRecord {
  readonly id: string;
  readonly type: CrmObjectType;
  /** Values set by writes; system values (hs_object_id, dates) are added by `valuesOf`. */
  readonly values: Map<string, string>;
  readonly createdAtMs: number;
  updatedAtMs: number;
  readonly versions: RecordVersion[];
}

/** One association row; a primary association (1) also carries the unlabeled one (279). */
export interface AssociationRow {
  contactId: string;
  companyId: string;
  typeId: number;
}

/** Contact→company association types (§3): 279 unlabeled, 1 primary. */
export const CONTACT_TO_COMPANY_TYPES: ReadonlySet<number> = new Set([279, 1]);

/** The last-modified property of each object (contacts and companies name it differently). */
export const LAST_MODIFIED: Record<CrmObjectType, string> = {
  contacts: 'lastmodifieddate',
  companies: 'hs_lastmodifieddate',
};

// Distinct id ranges, so that a contact id sent where a company id belongs finds nothing.
const FIRST_ID: Record<CrmObjectType, number> = { contacts: 51_000_000_001, companies: 31_000_000_001 };

const iso = (ms: number) => new Date(ms).toISOString();

/** The key a property's value is matched by: e-mail addresses are case-insensitive, other values exact. */
export function normalizeKey(property: string, value: string): string {
  return property === 'email' ? value.trim().toLowerCase() : value;
}

/** The portal. */
export class CrmStore {
  /** The portal's owners (owners.ts). */
  readonly owners: StandInOwner[] = [];
  readonly definitions: Record<CrmObjectType, Map<string, PropertyDefinition>>;
  readonly #records: Record<CrmObjectType, Map<string, StoredRecord>> = {
    contacts: new Map(),
    companies: new Map(),
  };
  readonly #associations = new Map<string, AssociationRow>();
  /** property → normalized value → ids of the records holding it, so keyed lookups stay cheap in benchmarks. */
  readonly #index: Record<CrmObjectType, Map<string, Map<string, Set<string>>>> = {
    contacts: new Map(),
    companies: new Map(),
  };
  readonly #nextId = { ...FIRST_ID };

  readonly #searchLagMs: number;

  /** `searchLagMs`: how long a write takes to reach search (0: at once, and no versions are kept). */
  constructor(nowMs: number, searchLagMs = 0) {
    this.#searchLagMs = searchLagMs;
    this.definitions = {
      contacts: defaultDefinitions('contacts', nowMs),
      companies: defaultDefinitions('companies', nowMs),
    };
  }

  define(type: CrmObjectType, input: PropertyDefinitionInput, nowMs: number): PropertyDefinition {
    const definition = toDefinition(input, nowMs);
    this.definitions[type].set(definition.name, definition);
    return definition;
  }

  all(type: CrmObjectType): StoredRecord[] {
    return [...this.#records[type].values()];
  }

  get(type: CrmObjectType, id: string): StoredRecord | undefined {
    return this.#records[type].get(id);
  }

  /** The record whose `property` holds `value` (hs_object_id is the record id); e-mail case-insensitive. */
  findBy(type: CrmObjectType, property: string, value: string): StoredRecord | undefined {
    if (property === 'hs_object_id') return this.get(type, value);
    const ids = this.#index[type].get(property)?.get(normalizeKey(property, value));
    // The oldest holder first, as a non-unique property may have several.
    const first = ids === undefined ? undefined : [...ids].sort((a, b) => Number(a) - Number(b))[0];
    return first === undefined ? undefined : this.get(type, first);
  }

  /** Whether a property's values are unique in the portal: a contact's e-mail, or `hasUniqueValue`. */
  isUnique(type: CrmObjectType, name: string): boolean {
    return name === 'email' ? type === 'contacts' : this.definitions[type].get(name)?.hasUniqueValue === true;
  }

  /** A record holding one of `values`' unique-property values, other than `exceptId`. */
  uniqueConflict(
    type: CrmObjectType,
    values: Readonly<Record<string, string>>,
    exceptId?: string,
  ): { name: string; value: string; existingId: string } | undefined {
    for (const [name, value] of Object.entries(values)) {
      if (!this.isUnique(type, name) || value === '') continue;
      const holder = this.findBy(type, name, value);
      if (holder && holder.id !== exceptId) return { name, value, existingId: holder.id };
    }
    return undefined;
  }

  create(type: CrmObjectType, values: Readonly<Record<string, string>>, nowMs: number): StoredRecord {
    const id = String(this.#nextId[type]++);
    const record: StoredRecord = {
      id,
      type,
      values: new Map(),
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      versions: [],
    };
    this.#records[type].set(id, record);
    this.write(record, values, nowMs);
    return record;
  }

  /** Overwrites each given value; `""` removes it; omitted properties stay as they are (§1). */
  write(record: StoredRecord, values: Readonly<Record<string, string>>, nowMs: number): void {
    for (const [name, value] of Object.entries(values)) {
      const held = record.values.get(name);
      if (held !== undefined)
        this.#index[record.type].get(name)?.get(normalizeKey(name, held))?.delete(record.id);
      if (value === '') {
        record.values.delete(name);
        continue;
      }
      // HubSpot keeps e-mail addresses in lower case.
      record.values.set(name, name === 'email' ? value.trim().toLowerCase() : value);
      const byValue = this.#index[record.type].get(name) ?? new Map<string, Set<string>>();
      this.#index[record.type].set(name, byValue);
      const key = normalizeKey(name, value);
      byValue.set(key, (byValue.get(key) ?? new Set()).add(record.id));
    }
    record.updatedAtMs = nowMs;
    if (this.#searchLagMs <= 0) return;
    record.versions.push({ atMs: nowMs, values: this.valuesOf(record) });
    // Only the newest version search can already see is needed, and those it cannot see yet.
    while ((record.versions[1]?.atMs ?? Number.POSITIVE_INFINITY) + this.#searchLagMs <= nowMs) {
      record.versions.shift();
    }
  }

  /**
   * Archives (deletes) a record as a user in HubSpot's UI would: gone from reads, lists, search and its
   * associations. False when there is no such record.
   */
  archive(type: CrmObjectType, id: string): boolean {
    const record = this.#records[type].get(id);
    if (record === undefined) return false;
    for (const [name, held] of record.values)
      this.#index[type].get(name)?.get(normalizeKey(name, held))?.delete(id);
    this.#records[type].delete(id);
    for (const [key, row] of this.#associations) {
      if ((type === 'contacts' ? row.contactId : row.companyId) === id) this.#associations.delete(key);
    }
    return true;
  }

  /** Every value of a record, system values included. */
  valuesOf(record: StoredRecord): Record<string, string> {
    // A contact's primary company, as HubSpot keeps it in `associatedcompanyid` (its first company else).
    const rows = record.type === 'contacts' ? this.associations() : [];
    const primary =
      rows.find((row) => row.contactId === record.id && row.typeId === 1) ??
      rows.find((row) => row.contactId === record.id);
    return {
      createdate: iso(record.createdAtMs),
      ...Object.fromEntries(record.values),
      ...(primary !== undefined ? { associatedcompanyid: primary.companyId } : {}),
      hs_object_id: record.id,
      [LAST_MODIFIED[record.type]]: iso(record.updatedAtMs),
    };
  }

  /** The values search sees at `nowMs`; undefined while the record's first write has not reached it. */
  indexedValues(record: StoredRecord, nowMs: number): Record<string, string> | undefined {
    const lagMs = this.#searchLagMs;
    if (lagMs <= 0) return this.valuesOf(record);
    const visible = record.versions.filter((version) => version.atMs + lagMs <= nowMs).at(-1);
    return visible?.values;
  }

  /** Adds an association, idempotently; a new primary company replaces the contact's previous primary. */
  associate(contactId: string, companyId: string, typeId: number): void {
    if (typeId === 1) {
      for (const [key, row] of this.#associations) {
        if (row.contactId === contactId && row.typeId === 1 && row.companyId !== companyId) {
          this.#associations.delete(key);
        }
      }
      this.associate(contactId, companyId, 279);
    }
    const key = `${contactId}:${companyId}:${typeId}`;
    if (!this.#associations.has(key)) this.#associations.set(key, { contactId, companyId, typeId });
  }

  associations(): AssociationRow[] {
    return [...this.#associations.values()].map((row) => ({ ...row }));
  }

  /** The labels the v4 API reports for a pair: "Primary" for type 1, none for the unlabeled type. */
  labelsOf(contactId: string, companyId: string): string[] {
    return this.#associations.has(`${contactId}:${companyId}:1`) ? ['Primary'] : [];
  }
}

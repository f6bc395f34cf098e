/**
 * The Pipedrive stand-in's records and fields (shared/docs/pipedrive-api.md §1, §2): API v2 persons and
 * organizations (`custom_fields` keyed by 40-character hashes, `emails` as objects, `org_id` a plain
 * integer), the v1 field lists with built-in keys and generated hashes, and search served by an index that
 * lags writes by `indexLagMs` of the stand-in's clock (§3 risk 2).
 */
import { createHash } from 'node:crypto';

export type PdObject = 'persons' | 'organizations';

/** A field as `/v1/personFields` and `/v1/organizationFields` list it. */
export interface PdField {
  readonly id: number;
  readonly key: string;
  readonly name: string;
  readonly field_type: string;
  readonly edit_flag: boolean;
  readonly options?: ReadonlyArray<{ readonly id: number; readonly label: string }>;
}

/** A record as the store holds it (v2 shape, timestamps RFC 3339). */
export interface PdRecord {
  id: number;
  name: string;
  owner_id: number;
  is_deleted: boolean;
  add_time: string;
  update_time: string;
  custom_fields: Record<string, unknown>;
  [field: string]: unknown;
}

/** Built-in fields (v1 field lists; `edit_flag: false`). */
const BUILT_IN: Record<PdObject, ReadonlyArray<Omit<PdField, 'id' | 'edit_flag'>>> = {
  persons: [
    { key: 'name', name: 'Name', field_type: 'varchar' },
    { key: 'first_name', name: 'First name', field_type: 'varchar' },
    { key: 'last_name', name: 'Last name', field_type: 'varchar' },
    { key: 'org_id', name: 'Organization', field_type: 'org' },
    { key: 'email', name: 'Email', field_type: 'varchar' },
    { key: 'phone', name: 'Phone', field_type: 'phone' },
    { key: 'owner_id', name: 'Owner', field_type: 'user' },
  ],
  organizations: [
    { key: 'name', name: 'Name', field_type: 'varchar' },
    { key: 'address', name: 'Address', field_type: 'address' },
    { key: 'website', name: 'Website', field_type: 'varchar' },
    { key: 'linkedin', name: 'LinkedIn profile', field_type: 'varchar' },
    {
      key: 'industry',
      name: 'Industry',
      field_type: 'enum',
      options: [
        { id: 1, label: 'Software' },
        { id: 2, label: 'Financial services' },
        { id: 3, label: 'Retail' },
      ],
    },
    { key: 'employee_count', name: 'Number of employees', field_type: 'double' },
    { key: 'owner_id', name: 'Owner', field_type: 'user' },
  ],
};

/** Custom field types search can look in (§2 "Searchable types"). */
export const SEARCHABLE_TYPES = new Set([
  'address',
  'varchar',
  'text',
  'varchar_auto',
  'double',
  'monetary',
  'phone',
]);

/** How Pipedrive splits a person's `name` when first and last names are not given (§1). */
export function splitName(name: string): { first_name: string; last_name: string | null } {
  const [first, ...rest] = name.trim().split(/\s+/);
  return { first_name: first ?? '', last_name: rest.length > 0 ? rest.join(' ') : null };
}

export class PdStore {
  readonly fields: Record<PdObject, PdField[]> = { persons: [], organizations: [] };
  readonly records: Record<PdObject, Map<number, PdRecord>> = {
    persons: new Map(),
    organizations: new Map(),
  };
  /** Saved filters by id (`filter_id` of a list): which records each keeps. */
  readonly filters = new Map<number, { object: PdObject; keeps: (record: PdRecord) => boolean }>();
  /** When each record's current values become searchable (epoch ms of the stand-in's clock). */
  readonly #indexedAt = new Map<string, number>();
  #nextId = 1;
  #nextFieldId = 9000;
  #nextOptionId = 100;

  constructor(
    private readonly now: () => number,
    private readonly indexLagMs: number,
  ) {
    for (const object of ['persons', 'organizations'] as const)
      for (const field of BUILT_IN[object])
        this.fields[object].push({ ...field, id: this.#nextFieldId++, edit_flag: false });
  }

  /** Adds a custom field with a generated 40-character hash key (differs per account: seeded by name and id). */
  addField(object: PdObject, name: string, fieldType: string, options: readonly string[] = []): PdField {
    const id = this.#nextFieldId++;
    const key = createHash('sha1').update(`${object}:${name}:${id}`).digest('hex');
    const field: PdField = {
      id,
      key,
      name,
      field_type: fieldType,
      edit_flag: true,
      ...(fieldType === 'enum' || fieldType === 'set'
        ? { options: options.map((label) => ({ id: this.#nextOptionId++, label })) }
        : {}),
    };
    this.fields[object].push(field);
    return field;
  }

  field(object: PdObject, name: string): PdField | undefined {
    return this.fields[object].find((field) => field.name === name);
  }

  insert(object: PdObject, values: Partial<PdRecord>): PdRecord {
    const time = new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const record: PdRecord = {
      name: '',
      owner_id: 1,
      is_deleted: false,
      custom_fields: {},
      ...values,
      id: this.#nextId++,
      add_time: time,
      update_time: time,
    };
    if (object === 'persons' && record.first_name === undefined && record.last_name === undefined) {
      Object.assign(record, splitName(record.name));
    }
    this.records[object].set(record.id, record);
    this.#indexedAt.set(`${object}:${record.id}`, this.now() + this.indexLagMs);
    return record;
  }

  touch(object: PdObject, record: PdRecord): void {
    record.update_time = new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    this.#indexedAt.set(`${object}:${record.id}`, this.now() + this.indexLagMs);
  }

  /** Whether search sees the record's current values yet. */
  indexed(object: PdObject, id: number): boolean {
    return (this.#indexedAt.get(`${object}:${id}`) ?? 0) <= this.now();
  }

  /** Makes every record searchable now (a test that is not about the lag). */
  settleIndex(): void {
    for (const key of this.#indexedAt.keys()) this.#indexedAt.set(key, 0);
  }

  /** Saves a filter over `object` (as a user does in the UI); its id, for `filter_id`. */
  addFilter(object: PdObject, keeps: (record: PdRecord) => boolean): number {
    const id = this.#nextId++;
    this.filters.set(id, { object, keeps });
    return id;
  }

  live(object: PdObject): PdRecord[] {
    return [...this.records[object].values()].filter((record) => !record.is_deleted);
  }
}

/**
 * The custom fields the pipedrive-* templates name (docs/templates.md), as a user creates them by hand;
 * the two key fields' hashes (undefined with `keys: false`: left for setup to create).
 */
export function addTemplateFields(
  store: PdStore,
  { keys = true }: { keys?: boolean } = {},
): { domain: string | undefined; linkedin: string | undefined } {
  const domain = keys ? store.addField('organizations', 'Domain', 'varchar').key : undefined;
  store.addField('organizations', 'Hooksync ID', 'varchar');
  const linkedin = keys ? store.addField('persons', 'LinkedIn URL', 'varchar').key : undefined;
  for (const name of [
    'Hooksync ID',
    'Job title',
    'Job change status',
    'Previous organization',
    'Previous job title',
  ])
    store.addField('persons', name, 'varchar');
  return { domain, linkedin };
}

/**
 * The org's data: Account, Contact and Lead records, written through one `write()` that checks what Salesforce
 * checks on a save (shared/docs/salesforce-api.md §2, §3, §6): unknown, read-only and required fields, lengths,
 * e-mail syntax, restricted picklists, numbers, unique values (case-insensitive unless the field is case
 * sensitive), the relationship by external id, validation and duplicate rules, and injected record faults.
 */
import { duplicatesDetected, lockError, type RecordError, recordError } from './errors.js';
import { idMaker } from './ids.js';
import {
  type FieldDefinition,
  ID_PREFIX,
  isText,
  type ObjectSchema,
  SOBJECT_NAMES,
  type SObjectName,
  standardSchema,
} from './schema.js';

/** A stored value: text, a number, a boolean, or null (empty). */
export type Value = string | number | boolean | null;

/** One record. */
export interface OrgRecord {
  Id: string;
  values: Record<string, Value>;
  createdAtMs: number;
  updatedAtMs: number;
}

/** What a save came to. */
export type WriteResult = { ok: true; id: string; created: boolean } | { ok: false; errors: RecordError[] };

/** An admin's validation rule: its message when the record (after the change) breaks it. */
export interface ValidationRule {
  object: SObjectName;
  check: (values: Readonly<Record<string, Value>>) => string | undefined;
  /** The field the error is shown on, if any. */
  field?: string;
}

/** A record fault to answer in place of the save, `times` times, for records that match. */
export interface RecordFault {
  object?: SObjectName;
  /** Default UNABLE_TO_LOCK_ROW. */
  statusCode?: string;
  message?: string;
  /** Matches records whose sent values include these (compared as text, case-insensitively). */
  where?: Record<string, string>;
  times?: number;
}

const EMAIL =
  /^[^\s@"<>(),;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/** Whether two values of `field` are the same key (case-insensitive unless the field says otherwise). */
export function sameValue(field: FieldDefinition | undefined, a: Value, b: Value): boolean {
  if (a === null || b === null) return false;
  return field?.caseSensitive === true
    ? String(a) === String(b)
    : String(a).toLowerCase() === String(b).toLowerCase();
}

/** The org. */
export class OrgStore {
  readonly schema: Record<SObjectName, ObjectSchema> = standardSchema();
  readonly #records = new Map<SObjectName, Map<string, OrgRecord>>(
    SOBJECT_NAMES.map((name) => [name, new Map()]),
  );
  readonly #ids = Object.fromEntries(SOBJECT_NAMES.map((name) => [name, idMaker(ID_PREFIX[name])])) as Record<
    SObjectName,
    () => string
  >;
  readonly validationRules: ValidationRule[] = [];
  readonly duplicateRules: Array<{ object: SObjectName; field: string }> = [];
  readonly #faults: Array<RecordFault & { left: number }> = [];
  /**
   * Lookups by value (`findBy`, unique checks) without scanning the org: `<object> <field>` → the value as
   * compared → record ids. Built on a field's first lookup, kept current by `write()`, dropped on a rollback.
   */
  readonly #indexes = new Map<string, Map<string, Set<string>>>();

  #compared(object: SObjectName, field: string, value: Value | undefined): string | undefined {
    if (value === null || value === undefined) return undefined;
    return this.schema[object].get(field)?.caseSensitive === true
      ? String(value)
      : String(value).toLowerCase();
  }

  #index(object: SObjectName, field: string): Map<string, Set<string>> {
    const name = `${object} ${field}`;
    let index = this.#indexes.get(name);
    if (index === undefined) {
      index = new Map();
      for (const record of this.#records.get(object)!.values()) {
        const value = this.#compared(object, field, record.values[field]);
        if (value !== undefined) index.set(value, (index.get(value) ?? new Set()).add(record.Id));
      }
      this.#indexes.set(name, index);
    }
    return index;
  }

  #reindex(object: SObjectName, record: OrgRecord, before: Readonly<Record<string, Value>>): void {
    for (const [name, index] of this.#indexes) {
      const [of, field] = name.split(' ') as [string, string];
      if (of !== object) continue;
      const [was, is] = [
        this.#compared(object, field, before[field]),
        this.#compared(object, field, record.values[field]),
      ];
      if (was === is) continue;
      if (was !== undefined) index.get(was)?.delete(record.Id);
      if (is !== undefined) index.set(is, (index.get(is) ?? new Set()).add(record.Id));
    }
  }

  all(object: SObjectName): OrgRecord[] {
    return [...this.#records.get(object)!.values()];
  }

  get(object: SObjectName, id: string): OrgRecord | undefined {
    const records = this.#records.get(object)!;
    return (
      records.get(id) ??
      (id.length === 15 ? [...records.values()].find((r) => r.Id.startsWith(id)) : undefined)
    );
  }

  /** Deletes a record (to the recycle bin: gone from queries); false when there is none. */
  delete(object: SObjectName, id: string): boolean {
    const record = this.get(object, id);
    return record !== undefined && this.#records.get(object)!.delete(record.Id);
  }

  /** Records whose `fieldName` holds `value` (as the field compares). */
  findBy(object: SObjectName, fieldName: string, value: Value): OrgRecord[] {
    const definition = this.schema[object].get(fieldName);
    if (fieldName === 'Id') {
      const record = typeof value === 'string' ? this.get(object, value) : undefined;
      return record ? [record] : [];
    }
    const compared = this.#compared(object, fieldName, value);
    const ids = compared === undefined ? undefined : this.#index(object, fieldName).get(compared);
    const records = this.#records.get(object)!;
    return [...(ids ?? [])]
      .map((id) => records.get(id)!)
      .filter((record) => sameValue(definition, record.values[fieldName] ?? null, value))
      .sort((a, b) => a.createdAtMs - b.createdAtMs || (a.Id < b.Id ? -1 : 1));
  }

  addFault(fault: RecordFault): void {
    this.#faults.push({ ...fault, left: fault.times ?? 1 });
  }

  #takeFault(object: SObjectName, input: Readonly<Record<string, unknown>>): RecordFault | undefined {
    const index = this.#faults.findIndex(
      (fault) =>
        (fault.object === undefined || fault.object === object) &&
        Object.entries(fault.where ?? {}).every(
          ([name, value]) => String(input[name] ?? '').toLowerCase() === value.toLowerCase(),
        ),
    );
    const fault = this.#faults[index];
    if (!fault) return undefined;
    fault.left -= 1;
    if (fault.left <= 0) this.#faults.splice(index, 1);
    return fault;
  }

  /** A copy of every record, for an all-or-none call to roll back to. */
  snapshot(): () => void {
    const copy = new Map([...this.#records].map(([name, records]) => [name, structuredClone(records)]));
    return () => {
      for (const [name, records] of copy) this.#records.set(name, records);
      this.#indexes.clear();
    };
  }

  /** Names in `input` that are no field of `object` (nor a relationship); the whole call fails on them. */
  unknownFields(object: SObjectName, input: Readonly<Record<string, unknown>>): string[] {
    const schema = this.schema[object];
    return Object.keys(input).filter(
      (name) =>
        name !== 'attributes' &&
        !schema.has(name) &&
        ![...schema.values()].some((definition) => definition.relationshipName === name),
    );
  }

  /**
   * Saves `input` on `existing` (update) or as a new record, as Salesforce does: blank relationship and value
   * checks first, every error of the record collected, nothing written when there is one.
   */
  write(
    object: SObjectName,
    existing: OrgRecord | undefined,
    input: Readonly<Record<string, unknown>>,
    now: number,
  ): WriteResult {
    const fault = this.#takeFault(object, input);
    if (fault) {
      const statusCode = fault.statusCode ?? 'UNABLE_TO_LOCK_ROW';
      return {
        ok: false,
        errors: [
          statusCode === 'UNABLE_TO_LOCK_ROW' && fault.message === undefined
            ? lockError(existing?.Id ?? 'a parent record')
            : recordError(statusCode, fault.message ?? statusCode),
        ],
      };
    }
    const schema = this.schema[object];
    const errors: RecordError[] = [];
    const changes: Record<string, Value> = {};
    const readOnly: string[] = [];
    for (const [name, raw] of Object.entries(input)) {
      if (name === 'attributes') continue;
      const relation = [...schema.values()].find((definition) => definition.relationshipName === name);
      if (relation !== undefined) {
        const resolved = this.#resolveParent(relation, raw);
        if ('error' in resolved) errors.push(resolved.error);
        else changes[relation.name] = resolved.id;
        continue;
      }
      const definition = schema.get(name);
      if (definition === undefined) {
        errors.push(
          recordError('INVALID_FIELD', `No such column '${name}' on sobject of type ${object}`, [name]),
        );
        continue;
      }
      if (existing === undefined ? !definition.createable : !definition.updateable) {
        readOnly.push(name);
        continue;
      }
      const checked = checkValue(definition, raw);
      if ('error' in checked) errors.push(checked.error);
      else changes[name] = checked.value;
    }
    if (readOnly.length > 0) {
      errors.push(
        recordError(
          'INVALID_FIELD_FOR_INSERT_UPDATE',
          `Unable to ${existing === undefined ? 'create' : 'create/update'} fields: ${readOnly.join(', ')}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
          readOnly,
        ),
      );
    }
    const after: Record<string, Value> = { ...(existing?.values ?? {}), ...changes };
    const missing = [...schema.values()]
      .filter((d) => !d.nillable && d.createable && !d.defaultedOnCreate && d.type !== 'boolean')
      .filter((d) => after[d.name] === undefined || after[d.name] === null || after[d.name] === '')
      .map((d) => d.name);
    if (missing.length > 0)
      errors.push(
        recordError(
          'REQUIRED_FIELD_MISSING',
          `Required fields are missing: [${missing.join(', ')}]`,
          missing,
        ),
      );
    if (errors.length > 0) return { ok: false, errors };
    for (const [name, value] of Object.entries(changes)) {
      const definition = schema.get(name)!;
      if (!definition.unique || value === null) continue;
      const holder = this.findBy(object, name, value).find((record) => record.Id !== existing?.Id);
      if (holder)
        errors.push(
          recordError(
            'DUPLICATE_VALUE',
            `duplicate value found: ${name} duplicates value on record with id: ${holder.Id}`,
            [name],
          ),
        );
    }
    for (const rule of this.validationRules.filter((r) => r.object === object)) {
      const message = rule.check(after);
      if (message !== undefined)
        errors.push(
          recordError(
            'FIELD_CUSTOM_VALIDATION_EXCEPTION',
            message,
            rule.field === undefined ? [] : [rule.field],
          ),
        );
    }
    for (const rule of this.duplicateRules.filter((r) => r.object === object)) {
      const value = after[rule.field] ?? null;
      const match =
        value === null
          ? undefined
          : this.findBy(object, rule.field, value).find((r) => r.Id !== existing?.Id);
      if (match) errors.push(duplicatesDetected(object, match.Id));
    }
    if (errors.length > 0) return { ok: false, errors };
    const stamp = new Date(now).toISOString().replace('Z', '+0000');
    const record: OrgRecord = existing ?? {
      Id: this.#ids[object](),
      values: {},
      createdAtMs: now,
      updatedAtMs: now,
    };
    const before = { ...record.values };
    Object.assign(record.values, changes);
    record.updatedAtMs = now;
    record.values.Id = record.Id;
    record.values.LastModifiedDate = stamp;
    record.values.SystemModstamp = stamp;
    if (existing === undefined) {
      record.values.CreatedDate = stamp;
      if (object === 'Lead' && (record.values.Status ?? null) === null)
        record.values.Status = 'Open - Not Contacted';
      this.#records.get(object)!.set(record.Id, record);
    }
    if (object !== 'Account') {
      record.values.Name = [record.values.FirstName, record.values.LastName]
        .filter((v) => v !== null && v !== undefined && v !== '')
        .join(' ');
    }
    this.#reindex(object, record, before);
    return { ok: true, id: record.Id, created: existing === undefined };
  }

  #resolveParent(relation: FieldDefinition, raw: unknown): { id: string } | { error: RecordError } {
    const target = relation.referenceTo[0] as SObjectName;
    const entries =
      typeof raw === 'object' && raw !== null ? Object.entries(raw).filter(([n]) => n !== 'attributes') : [];
    const [lookup, value] = entries[0] ?? [];
    const definition = lookup === undefined ? undefined : this.schema[target].get(lookup);
    if (
      entries.length !== 1 ||
      definition === undefined ||
      !definition.idLookup ||
      typeof value !== 'string'
    ) {
      return {
        error: recordError(
          'INVALID_FIELD',
          `The value provided for foreign key reference ${relation.relationshipName} is not a nested SObject`,
          [relation.name],
        ),
      };
    }
    const matches = this.findBy(target, lookup!, value);
    if (matches.length === 1) return { id: matches[0]!.Id };
    if (matches.length === 0) {
      return {
        error: recordError(
          'INVALID_FIELD',
          `Foreign key external ID: ${value} not found for field ${lookup} in entity ${target}`,
          [relation.name],
        ),
      };
    }
    return {
      error: recordError(
        'DUPLICATE_EXTERNAL_ID',
        `${definition.label}: more than one record found for external id field: [${matches.map((m) => m.Id).join(', ')}]`,
        [relation.name],
      ),
    };
  }
}

/** A sent value checked and converted as the field takes it. */
export function checkValue(
  definition: FieldDefinition,
  raw: unknown,
): { value: Value } | { error: RecordError } {
  const { name, label } = definition;
  if (raw === null) return { value: null };
  if (definition.type === 'int' || definition.type === 'double') {
    const number =
      typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
    if (!Number.isFinite(number) || (definition.type === 'int' && !Number.isInteger(number)))
      return {
        error: recordError(
          'INVALID_TYPE_ON_FIELD_IN_RECORD',
          `${label}: value not of required type: ${String(raw)}`,
          [name],
        ),
      };
    return { value: number };
  }
  if (definition.type === 'boolean') {
    if (typeof raw === 'boolean') return { value: raw };
    if (raw === 'true' || raw === 'false') return { value: raw === 'true' };
    return {
      error: recordError(
        'INVALID_TYPE_ON_FIELD_IN_RECORD',
        `${label}: value not of required type: ${String(raw)}`,
        [name],
      ),
    };
  }
  if (typeof raw === 'object')
    return {
      error: recordError(
        'JSON_PARSER_ERROR',
        `Cannot deserialize instance of string from START_OBJECT value for field ${name}`,
        [name],
      ),
    };
  const text = String(raw);
  if (text === '') return { value: null };
  if (isText(definition.type) && text.length > definition.length)
    return {
      error: recordError(
        'STRING_TOO_LONG',
        `${label}: data value too large: ${text} (max length=${definition.length})`,
        [name],
      ),
    };
  if (definition.type === 'email' && !EMAIL.test(text))
    return {
      error: recordError('INVALID_EMAIL_ADDRESS', `${label}: invalid email address: ${text}`, [name]),
    };
  if (
    definition.type === 'picklist' &&
    definition.restrictedPicklist &&
    !definition.picklistValues.some((p) => p.active && p.value === text)
  )
    return {
      error: recordError(
        'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
        `${label}: bad value for restricted picklist field: ${text}`,
        [name],
      ),
    };
  if (definition.type === 'reference' && !/^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/.test(text))
    return { error: recordError('MALFORMED_ID', `${label}: id value of incorrect type: ${text}`, [name]) };
  return { value: text };
}

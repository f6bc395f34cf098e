/**
 * What the org's `describe` says about the fields a destination writes (shared/docs/salesforce-api.md §2, §9):
 * the key fields must exist, be External ID + Unique and case-insensitive; every mapped field must exist and be
 * updateable. The same descriptions, mapped onto the core's field definitions, fit values before they are
 * sent (`crm/check-values.ts`: text cut to the field's length, restricted picklist options, e-mail addresses
 * and numbers checked; a value that cannot fit is left out with a warning, never sent to fail the record).
 */
import { z } from 'zod';
import type { FieldDefinition } from '../crm/check-values.js';
import type { SalesforceClient } from './salesforce-client.js';

/** The part of a field's description the destination reads. */
const fieldSchema = z.looseObject({
  name: z.string(),
  type: z.string(),
  length: z.number().default(0),
  createable: z.boolean().default(false),
  updateable: z.boolean().default(false),
  externalId: z.boolean().default(false),
  unique: z.boolean().default(false),
  caseSensitive: z.boolean().default(false),
  restrictedPicklist: z.boolean().default(false),
  picklistValues: z
    .array(z.looseObject({ value: z.string(), active: z.boolean().default(true) }))
    .default([]),
});
export type FieldInfo = z.output<typeof fieldSchema>;

/** `describe`'s answer, the part read. */
export const describeSchema = z.looseObject({ name: z.string(), fields: z.array(fieldSchema) });

/** An object's fields by name. */
export type ObjectFields = ReadonlyMap<string, FieldInfo>;

/** The objects a destination writes. */
export type SalesforceObject = 'Account' | 'Contact' | 'Lead';

/** Reads an object's fields (one API call). */
export async function describeObject(
  client: SalesforceClient,
  object: SalesforceObject,
  signal: AbortSignal,
): Promise<ObjectFields> {
  const answer = await client.json(
    describeSchema,
    { method: 'GET', path: `sobjects/${object}/describe` },
    signal,
  );
  return new Map(answer.fields.map((field) => [field.name, field]));
}

/** One thing the org lacks, and what the admin is to do about it. */
export interface SchemaProblem {
  readonly object: SalesforceObject;
  readonly field: string;
  readonly problem: string;
  /** The instruction printed by `setup`. */
  readonly fix: string;
}

/** Types of the custom fields the salesforce-* templates write, for the instructions. */
function customType(field: string): string {
  return /url/i.test(field) ? 'URL(255)' : 'Text(255)';
}

/** The problems of one object: its key field (when it has one here) and the fields the mapping writes. */
export function checkObjectFields(
  object: SalesforceObject,
  fields: ObjectFields,
  wanted: { readonly key?: string; readonly mapped: readonly string[] },
): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const key = wanted.key;
  if (key !== undefined) {
    const info = fields.get(key);
    const create = `create the custom field ${key} on ${object}: Text(255), External ID, Unique, "Treat ABC and abc as duplicate values (case insensitive)"`;
    if (info === undefined) problems.push({ object, field: key, problem: 'is missing', fix: create });
    else {
      if (!info.externalId || !info.unique)
        problems.push({
          object,
          field: key,
          problem: 'is not External ID + Unique',
          fix: `edit ${object}.${key}: tick External ID and Unique`,
        });
      else if (info.caseSensitive)
        problems.push({
          object,
          field: key,
          problem: 'is case sensitive',
          fix: `edit ${object}.${key}: choose "Treat ABC and abc as duplicate values (case insensitive)"`,
        });
      if (!info.createable || !info.updateable)
        problems.push({
          object,
          field: key,
          problem: 'is read-only for the integration user',
          fix: `give the integration user edit access to ${object}.${key} (field-level security)`,
        });
    }
  }
  for (const name of new Set(wanted.mapped)) {
    if (name === key) continue;
    const info = fields.get(name);
    if (info === undefined) {
      problems.push({
        object,
        field: name,
        problem: 'is missing',
        fix: name.endsWith('__c')
          ? `create the custom field ${name} on ${object}: ${customType(name)}`
          : `give the integration user read access to ${object}.${name}`,
      });
    } else if (!info.updateable || !info.createable) {
      problems.push({
        object,
        field: name,
        problem: 'is not updateable',
        fix: `give the integration user edit access to ${object}.${name} (field-level security)`,
      });
    }
  }
  return problems;
}

/** Salesforce's field types as the core's value checks know them (`crm/check-values.ts`). */
function coreType(field: FieldInfo): string {
  if (field.type === 'picklist' || field.type === 'multipicklist')
    return field.restrictedPicklist ? 'enumeration' : 'string';
  if (['int', 'double', 'currency', 'percent'].includes(field.type)) return 'number';
  if (field.type === 'boolean') return 'bool';
  if (field.type === 'date' || field.type === 'datetime' || field.type === 'email') return field.type;
  return 'string';
}

const TEXT_TYPES: ReadonlySet<string> = new Set([
  'string',
  'textarea',
  'url',
  'phone',
  'email',
  'picklist',
  'multipicklist',
  'combobox',
]);

/** An object's fields as the core's value checks take them: types, restricted picklist options, text lengths. */
export function fieldDefinitionsOf(fields: ObjectFields): Map<string, FieldDefinition> {
  const definitions = new Map<string, FieldDefinition>();
  for (const field of fields.values()) {
    const type = coreType(field);
    definitions.set(field.name, {
      name: field.name,
      type,
      ...(type === 'enumeration'
        ? { options: field.picklistValues.filter((p) => p.active).map((p) => ({ value: p.value })) }
        : {}),
      ...(field.unique ? { hasUniqueValue: true } : {}),
      ...(TEXT_TYPES.has(field.type) && field.length > 0 ? { maxLength: field.length } : {}),
    });
  }
  return definitions;
}

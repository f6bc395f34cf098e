/**
 * Pipedrive's fields by the names the pipedrive-* templates use ("Name", "Email", "Domain", "LinkedIn
 * URL", ...): read once from `/v1/personFields` and `/v1/organizationFields` (20 tokens each), built-in
 * fields by their key, custom ones by their 40-character hash (§2). Turns the core's properties into a v2
 * body (custom values under `custom_fields`, e-mails as objects, an enumeration's label as its option id,
 * numbers as numbers) and a v2 record back into properties.
 */
import { z } from 'zod';
import { checkAnswer } from '../crm/check-answer.js';
import type { FieldDefinition } from '../crm/check-values.js';
import type { CrmObject } from '../crm/crm-adapter.js';
import type { CrmAnswer } from '../crm/crm-http.js';

/** One field as the v1 list gives it. */
export interface PipedriveField {
  readonly key: string;
  readonly name: string;
  readonly type: string;
  readonly options: ReadonlyArray<{ readonly id: number; readonly label: string }>;
}

/** An object's fields by name. */
export type PipedriveFields = ReadonlyMap<string, PipedriveField>;

/** A custom field's key: a 40-character hash. */
export const isCustomKey = (key: string) => /^[0-9a-f]{40}$/.test(key);

/** The v1 path of an object's fields, and the v2 path of its records. */
export const FIELDS_PATH: Record<CrmObject, string> = {
  companies: '/api/v1/organizationFields',
  contacts: '/api/v1/personFields',
};
export const RECORDS_PATH: Record<CrmObject, string> = {
  companies: '/api/v2/organizations',
  contacts: '/api/v2/persons',
};

const fieldsSchema = z.object({
  data: z.array(
    z.object({
      key: z.string(),
      name: z.string(),
      field_type: z.string(),
      options: z
        .array(z.object({ id: z.union([z.number(), z.string()]).transform(Number), label: z.string() }))
        .nullish(),
    }),
  ),
});

/** The fields of an answer to `GET /v1/{person,organization}Fields`. */
export function readFields(answer: CrmAnswer, call: string): Map<string, PipedriveField> {
  const body = checkAnswer(fieldsSchema, answer, { crm: 'Pipedrive', call });
  return new Map(
    body.data.map((field) => [
      field.name,
      { key: field.key, name: field.name, type: field.field_type, options: field.options ?? [] },
    ]),
  );
}

/** The core's types (check-values.ts) of Pipedrive's field types. */
function coreType(field: PipedriveField): string {
  if (field.key === 'email') return 'email';
  if (field.type === 'enum' || field.type === 'set') return 'enumeration';
  if (field.type === 'double' || field.type === 'monetary') return 'number';
  if (field.type === 'date') return 'date';
  return 'string';
}

/** Characters a Text field (`varchar`, `varchar_auto`) holds (§2). */
export const VARCHAR_MAX = 255;

/**
 * The fields as the core's definitions, by name: a Text field's value cut to 255 characters, an
 * enumeration's label one of its options (sent as the option's id), an e-mail an address.
 */
export function definitionsOf(fields: PipedriveFields): Map<string, FieldDefinition> {
  return new Map(
    [...fields.values()].map((field) => [
      field.name,
      {
        name: field.name,
        type: coreType(field),
        ...(field.options.length > 0 ? { options: field.options.map((o) => ({ value: o.label })) } : {}),
        ...(/^varchar/.test(field.type) && field.key !== 'email' ? { maxLength: VARCHAR_MAX } : {}),
      },
    ]),
  );
}

/** The value to send for `field`: an option id, a number, or the text. */
function encodeValue(field: PipedriveField, value: string): unknown {
  if (field.type === 'enum') return field.options.find((option) => option.label === value)?.id;
  if (field.type === 'set')
    return value.split(';').flatMap((part) => field.options.filter((o) => o.label === part).map((o) => o.id));
  if (field.type === 'double' || field.key === 'employee_count') return Number(value);
  return value;
}

/**
 * A v2 create or update body from properties (names → text). `orgId` is the person's organization, sent
 * as `org_id` where the mapping writes "Organization" (a link, never a text). Unknown names are left out
 * (the core's value check has warned of them); nothing empty is ever sent.
 */
export function encodeBody(
  fields: PipedriveFields,
  properties: Readonly<Record<string, string>>,
  orgId: string | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(properties)) {
    const field = fields.get(name);
    if (field === undefined || text === '') continue;
    if (field.key === 'org_id') {
      if (orgId !== undefined) body.org_id = Number(orgId);
      continue;
    }
    const value = encodeValue(field, text);
    if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) continue;
    if (isCustomKey(field.key)) custom[field.key] = value;
    else if (field.key === 'email') body.emails = [{ value: text, primary: true, label: 'work' }];
    else if (field.key === 'address') body.address = { value: text };
    else body[field.key] = value;
  }
  if (Object.keys(custom).length > 0) body.custom_fields = custom;
  return body;
}

/** The text of a held value (an option's label for an option id); null when empty. */
function decodeValue(field: PipedriveField, value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (field.type === 'enum') return field.options.find((o) => o.id === Number(value))?.label ?? String(value);
  if (typeof value === 'object') {
    const inner = (value as { value?: unknown }).value;
    return inner === undefined || inner === null ? null : String(inner);
  }
  return String(value);
}

/** A v2 record's values of `names` (null: empty). */
export function decodeRecord(
  fields: PipedriveFields,
  record: Readonly<Record<string, unknown>>,
  names: readonly string[],
): Record<string, string | null> {
  const custom = (record.custom_fields ?? {}) as Record<string, unknown>;
  const out: Record<string, string | null> = {};
  for (const name of names) {
    const field = fields.get(name);
    if (field === undefined) continue;
    if (field.key === 'email') {
      const emails = (record.emails ?? []) as Array<{ value?: string; primary?: boolean }>;
      out[name] = (emails.find((e) => e.primary) ?? emails[0])?.value ?? null;
    } else out[name] = decodeValue(field, isCustomKey(field.key) ? custom[field.key] : record[field.key]);
  }
  return out;
}

/** The custom field keys among `names` (for `GET /{id}?custom_fields=`, at most 15). */
export function customKeys(fields: PipedriveFields, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const key = fields.get(name)?.key;
    return key !== undefined && isCustomKey(key) ? [key] : [];
  });
}

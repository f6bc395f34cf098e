/**
 * custom_fields (Resources, custom_fields): a flat object of at most 100 string/number/boolean values,
 * stored as {} when omitted or null and echoed unchanged in input.task.custom_fields.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import {
  CUSTOM_FIELDS_KEY_PATTERN,
  CUSTOM_FIELDS_MAX_PROPERTIES,
  CUSTOM_FIELDS_MAX_STRING_LENGTH,
} from './limits.js';

/**
 * A custom field value. JSON integers beyond 2^53 arrive as bigint from `parseJsonText`; the
 * interface allows any number, so they are accepted as such.
 */
export type CustomFieldValue = string | number | bigint | boolean;
/** A validated custom_fields object. */
export type CustomFields = Record<string, CustomFieldValue>;

/** True for `{...}` (a plain object), as opposed to arrays, null, class instances and scalars. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describeType(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === '') return 'an empty string';
  return `a ${typeof value}`;
}

/** Each rule `value` breaks, as `[key, problem]` (key undefined for the object itself). */
function findProblems(value: unknown): Array<[string | undefined, string]> {
  if (!isPlainObject(value)) {
    return [
      [
        undefined,
        `must be an object of at most ${CUSTOM_FIELDS_MAX_PROPERTIES} properties, got ${describeType(value)}`,
      ],
    ];
  }
  const problems: Array<[string | undefined, string]> = [];
  const keys = Object.keys(value);
  if (keys.length > CUSTOM_FIELDS_MAX_PROPERTIES) {
    problems.push([
      undefined,
      `must have at most ${CUSTOM_FIELDS_MAX_PROPERTIES} properties, got ${keys.length}`,
    ]);
  }
  for (const key of keys) {
    if (!CUSTOM_FIELDS_KEY_PATTERN.test(key)) {
      problems.push([key, `key ${JSON.stringify(key)} must match ${CUSTOM_FIELDS_KEY_PATTERN.source}`]);
      continue;
    }
    const v = value[key];
    if (typeof v === 'string') {
      if (v.length > CUSTOM_FIELDS_MAX_STRING_LENGTH) {
        problems.push([
          key,
          `must be at most ${CUSTOM_FIELDS_MAX_STRING_LENGTH} characters long, got ${v.length}`,
        ]);
      }
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) problems.push([key, 'must be a finite number']);
    } else if (typeof v !== 'boolean' && typeof v !== 'bigint') {
      problems.push([key, `must be a string, a number or a boolean, got ${describeType(v)}`]);
    }
  }
  return problems;
}

function pathOf(key: string | undefined): string {
  return key === undefined ? 'custom_fields' : `custom_fields.${key}`;
}

function addProblems(value: unknown, ctx: z.RefinementCtx): void {
  for (const [key, message] of findProblems(value)) {
    ctx.addIssue({ code: 'custom', message, path: key === undefined ? [] : [key] });
  }
}

/**
 * custom_fields as stored in a task: always an object (never null), every rule of the interface checked.
 * Issues carry the offending key in their path.
 */
export const customFieldsSchema = z.custom<CustomFields>(() => true).superRefine(addProblems);

/** custom_fields as a request field: omitted or null becomes `{}`, anything else as {@link customFieldsSchema}. */
export const requestCustomFieldsSchema = customFieldsSchema
  .nullable()
  .optional()
  .transform((value): CustomFields => value ?? {});

/**
 * Validates a request's custom_fields: null or undefined → `{}`; otherwise the object itself, returned
 * unchanged. Anything else throws ValidationError VALIDATION_BAD_REQUEST naming the offending key.
 */
export function parseCustomFields(value: unknown): CustomFields {
  if (value === undefined || value === null) return {};
  const problems = findProblems(value);
  if (problems.length > 0) {
    const issues = problems.map(([key, message]) => `${pathOf(key)}: ${message}`);
    throw new ValidationError('VALIDATION_BAD_REQUEST', `Invalid request: ${issues[0]}`, issues);
  }
  return value as CustomFields;
}

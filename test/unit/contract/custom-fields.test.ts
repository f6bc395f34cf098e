import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  customFieldsSchema,
  parseCustomFields,
  requestCustomFieldsSchema,
} from '../../../src/contract/custom-fields.js';
import { ValidationError } from '../../../src/errors.js';

function manyProps(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`field_${i}`, i]));
}

function refusalOf(value: unknown): ValidationError {
  try {
    parseCustomFields(value);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseCustomFields', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
  ])('stores %s as {}', (_label, value) => {
    expect(parseCustomFields(value)).toEqual({});
  });

  it('returns a valid object unchanged', () => {
    const fields = {
      crm_id: 'A-1',
      'Owner-2': 'x'.repeat(1000),
      score: 12.5,
      big: 12345678901234567890n,
      trial: false,
      ...manyProps(95),
    };
    expect(parseCustomFields(fields)).toBe(fields);
    expect(parseCustomFields(manyProps(100))).toEqual(manyProps(100));
  });

  const bad: [label: string, value: unknown, issue: string][] = [
    ['101 properties', manyProps(101), 'custom_fields: must have at most 100 properties'],
    ['a key with a space', { 'crm id': 1 }, 'custom_fields.crm id: key "crm id" must match'],
    ['a key with a dot', { 'crm.id': 1 }, 'custom_fields.crm.id: key "crm.id" must match'],
    ['an empty key', { '': 1 }, 'custom_fields.: key "" must match'],
    ['a non-ASCII key', { größe: 1 }, 'custom_fields.größe: key'],
    [
      'a 1001-character string',
      { note: 'x'.repeat(1001) },
      'custom_fields.note: must be at most 1000 characters',
    ],
    [
      'a nested object',
      { nested: { a: 1 } },
      'custom_fields.nested: must be a string, a number or a boolean, got a object',
    ],
    [
      'an array value',
      { tags: ['a'] },
      'custom_fields.tags: must be a string, a number or a boolean, got an array',
    ],
    [
      'a null value',
      { owner: null },
      'custom_fields.owner: must be a string, a number or a boolean, got null',
    ],
    [
      'a non-finite number',
      { ratio: Number.POSITIVE_INFINITY },
      'custom_fields.ratio: must be a finite number',
    ],
    ['an array', [], 'custom_fields: must be an object'],
    [
      'an empty string',
      '',
      'custom_fields: must be an object of at most 100 properties, got an empty string',
    ],
    ['a string', 'a=1', 'custom_fields: must be an object'],
    ['a number', 42, 'custom_fields: must be an object'],
    ['a boolean', true, 'custom_fields: must be an object'],
    ['a Date', new Date(0), 'custom_fields: must be an object'],
  ];
  it.each(bad)('refuses %s with VALIDATION_BAD_REQUEST naming the key', (_label, value, issue) => {
    const error = refusalOf(value);
    expect(error.code).toBe('VALIDATION_BAD_REQUEST');
    expect(error.issues[0]).toContain(issue);
    expect(error.message).toContain(issue);
  });

  it('names every offending key (up to the error object limit of 10)', () => {
    const error = refusalOf({ good: 1, 'bad 1': 1, bad2: [], bad3: 'x'.repeat(1001) });
    expect(error.issues.map((i) => i.split(':')[0])).toEqual([
      'custom_fields.bad 1',
      'custom_fields.bad2',
      'custom_fields.bad3',
    ]);
  });

  it('accepts every object fast-check builds within the rules, and nothing more', () => {
    const key = fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/);
    const value = fc.oneof(
      fc.string({ maxLength: 1000 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
    );
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 100 }), (fields) => {
        expect(parseCustomFields(fields)).toBe(fields);
        expect(customFieldsSchema.safeParse(fields).success).toBe(true);
      }),
    );
  });
});

describe('customFieldsSchema (task) and requestCustomFieldsSchema', () => {
  it('requires an object in a task, with the key in the issue path', () => {
    expect(customFieldsSchema.safeParse(null).success).toBe(false);
    expect(customFieldsSchema.safeParse(undefined).success).toBe(false);
    const result = customFieldsSchema.safeParse({ ok: 1, 'no way': 2 });
    expect(result.error?.issues.map((i) => i.path)).toEqual([['no way']]);
  });

  it('maps null and absence to {} in a request', () => {
    expect(requestCustomFieldsSchema.parse(null)).toEqual({});
    expect(requestCustomFieldsSchema.parse(undefined)).toEqual({});
    expect(requestCustomFieldsSchema.safeParse('').success).toBe(false);
  });
});

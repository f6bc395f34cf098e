/** `from.pipedrive` as a watches file gives it: the destination, and a saved filter or an owner. */
import { describe, expect, it } from 'vitest';
import {
  PIPEDRIVE_FIELD_NAME,
  PIPEDRIVE_SOURCE,
} from '../../../../src/destinations/pipedrive/read-persons.js';

const problem = (value: unknown) => {
  const parsed = PIPEDRIVE_SOURCE.schema.safeParse(value);
  return parsed.success ? undefined : parsed.error.issues[0]!.message;
};

describe('from.pipedrive', () => {
  it('takes a destination with a saved filter, an owner, or neither', () => {
    expect(PIPEDRIVE_SOURCE.schema.parse({ destination: 'pd' })).toEqual({ destination: 'pd' });
    expect(PIPEDRIVE_SOURCE.schema.parse({ destination: 'pd', filter_id: 42 })).toMatchObject({
      filter_id: 42,
    });
    expect(PIPEDRIVE_SOURCE.schema.parse({ destination: 'pd', owner_id: 7 })).toMatchObject({ owner_id: 7 });
  });

  it('refuses both at once, an id that is not a positive integer, and an unknown key', () => {
    expect(problem({ destination: 'pd', filter_id: 1, owner_id: 2 })).toContain(
      'filter_id or owner_id, not both',
    );
    expect(problem({ destination: 'pd', filter_id: '42' })).toBeDefined();
    expect(problem({ destination: 'pd', owner_id: 0 })).toBeDefined();
    expect(problem({ destination: 'pd', filter: { x: 1 } })).toBeDefined();
    expect(problem({})).toBeDefined();
  });

  it('names fields as the account shows them', () => {
    expect(PIPEDRIVE_FIELD_NAME.test('Job title')).toBe(true);
    expect(PIPEDRIVE_FIELD_NAME.test('LinkedIn URL')).toBe(true);
    expect(PIPEDRIVE_FIELD_NAME.test(' padded')).toBe(false);
    expect(PIPEDRIVE_FIELD_NAME.test('')).toBe(false);
  });
});

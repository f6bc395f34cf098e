import { describe, expect, it } from 'vitest';
import { apiKeyListSchema, apiKeyRecordSchema } from '../../../src/contract/api-keys.js';

const MASTER = {
  api_key: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  active: true,
  notes: 'master',
  master: true,
  per_interval: 50,
  interval_seconds: 60,
};

describe('apiKeyListSchema', () => {
  it('accepts the master key and sub-keys, keeping extra members', () => {
    const sub = {
      ...MASTER,
      api_key: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      master: false,
      active: false,
      notes: '',
      per_interval: 10,
      created: 'x',
    };
    expect(apiKeyListSchema.parse({ api_keys: [MASTER, sub] })).toEqual({ api_keys: [MASTER, sub] });
    expect(apiKeyListSchema.parse({ api_keys: [] })).toEqual({ api_keys: [] });
  });

  it.each([
    ['api_key', ''],
    ['api_key', 42],
    ['active', 'yes'],
    ['notes', null],
    ['master', 1],
    ['per_interval', 2.5],
    ['per_interval', -1],
    ['interval_seconds', 0],
    ['interval_seconds', '60'],
    ['interval_seconds', undefined],
  ])('refuses %s = %j', (field, value) => {
    expect(apiKeyRecordSchema.safeParse({ ...MASTER, [field]: value }).success).toBe(false);
  });

  it('takes a key of any form: keys are opaque secrets', () => {
    expect(apiKeyRecordSchema.safeParse({ ...MASTER, api_key: 'sk_live_123' }).success).toBe(true);
  });

  it('refuses a list that is not under api_keys', () => {
    expect(apiKeyListSchema.safeParse([MASTER]).success).toBe(false);
    expect(apiKeyListSchema.safeParse({ keys: [MASTER] }).success).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import {
  createApiKeyRegistry,
  isRateAbove,
  parseRateSpec,
  parseSubKeySpec,
} from '../../../src/simulator/api-key-registry.js';

const master = { perInterval: 50, intervalSeconds: 60 };

describe('key specs', () => {
  it('parses rates and sub-keys, keeping colons inside keys', () => {
    expect(parseRateSpec('5/2')).toEqual({ perInterval: 5, intervalSeconds: 2 });
    expect(parseSubKeySpec('abc')).toEqual({ apiKey: 'abc' });
    expect(parseSubKeySpec('abc:10/60')).toEqual({
      apiKey: 'abc',
      rate: { perInterval: 10, intervalSeconds: 60 },
    });
    expect(parseSubKeySpec('a:b:c')).toEqual({ apiKey: 'a:b:c' });
    expect(parseSubKeySpec('a:b:1/1')).toEqual({
      apiKey: 'a:b',
      rate: { perInterval: 1, intervalSeconds: 1 },
    });
  });

  it('refuses malformed specs', () => {
    for (const bad of ['', '0/60', '5/0', '5', 'x/y', '5/2/1'])
      expect(() => parseRateSpec(bad)).toThrow(TypeError);
    expect(() => parseSubKeySpec(':5/2')).toThrow(TypeError);
  });

  it('compares rates per second, exactly', () => {
    expect(isRateAbove({ perInterval: 51, intervalSeconds: 60 }, master)).toBe(true);
    expect(isRateAbove({ perInterval: 100, intervalSeconds: 120 }, master)).toBe(false);
    expect(isRateAbove({ perInterval: 101, intervalSeconds: 120 }, master)).toBe(true);
    expect(isRateAbove({ perInterval: 1, intervalSeconds: 1 }, master)).toBe(true);
  });
});

describe('createApiKeyRegistry', () => {
  it('lists the master key first and each sub-key with its rate', () => {
    const registry = createApiKeyRegistry('master-key', master, [
      { apiKey: 'sub-1', rate: { perInterval: 10, intervalSeconds: 60 } },
      { apiKey: 'sub-2' },
    ]);
    expect(registry.list()).toEqual([
      {
        api_key: 'master-key',
        active: true,
        notes: 'master key',
        master: true,
        per_interval: 50,
        interval_seconds: 60,
      },
      {
        api_key: 'sub-1',
        active: true,
        notes: 'sub-key 1',
        master: false,
        per_interval: 10,
        interval_seconds: 60,
      },
      {
        api_key: 'sub-2',
        active: true,
        notes: 'sub-key 2',
        master: false,
        per_interval: 50,
        interval_seconds: 60,
      },
    ]);
    expect(registry.find('sub-1')?.master).toBe(false);
    expect(registry.find('nope')).toBeUndefined();
  });

  it('refuses a sub-key rate above the master with VALIDATION_SUBKEY_RATE_EXCEEDS_MASTER', () => {
    let caught: unknown;
    try {
      createApiKeyRegistry('m', master, [{ apiKey: 's', rate: { perInterval: 60, intervalSeconds: 60 } }]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).code).toBe('VALIDATION_SUBKEY_RATE_EXCEEDS_MASTER');
  });

  it('refuses an empty master key and duplicates', () => {
    expect(() => createApiKeyRegistry(' ', master, [])).toThrow(TypeError);
    expect(() => createApiKeyRegistry('m', master, [{ apiKey: 'm' }])).toThrow(TypeError);
  });
});

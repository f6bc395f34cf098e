import { describe, expect, it } from 'vitest';
import { checkServeConfig, describeMissingAccount } from '../../../src/config/check-serve-config.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/errors.js';

const ACCOUNT = { HOOKSYNC_API_BASE_URL: 'http://127.0.0.1:9000', HOOKSYNC_API_KEY: 'key-1' };

describe('checkServeConfig', () => {
  it('gives the key set URL, and the account when one is configured', () => {
    expect(checkServeConfig(loadConfig({ HOOKSYNC_JWKS_URL: 'http://127.0.0.1:9/jwks.json' }))).toEqual({
      jwksUrl: 'http://127.0.0.1:9/jwks.json',
      account: undefined,
    });
    expect(checkServeConfig(loadConfig(ACCOUNT))).toEqual({
      jwksUrl: 'http://127.0.0.1:9000/.well-known/jwks.json',
      account: { baseUrl: 'http://127.0.0.1:9000', apiKey: 'key-1' },
    });
  });

  it('refuses, naming the variable or flag, what serve cannot run on', () => {
    const refusal = (env: Record<string, string>, reconcileCron?: string) => {
      try {
        checkServeConfig(loadConfig(env), { reconcileCron });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      return undefined;
    };
    expect(refusal({})).toMatch(/^serve needs HOOKSYNC_JWKS_URL or HOOKSYNC_API_BASE_URL/);
    expect(refusal({ ...ACCOUNT, HOOKSYNC_ADMIN_TOKEN: 'short' })).toMatch(
      /^HOOKSYNC_ADMIN_TOKEN must be at least 32 characters/,
    );
    const keysOnly = { HOOKSYNC_JWKS_URL: 'http://127.0.0.1:9/jwks.json' };
    expect(refusal(keysOnly, '0 3 * * *')).toMatch(
      /^--reconcile-cron needs HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY/,
    );
    expect(refusal({ ...keysOnly, HOOKSYNC_UNSIGNED: 'fetch' })).toMatch(/^HOOKSYNC_UNSIGNED=fetch needs/);
    expect(refusal({ ...ACCOUNT, HOOKSYNC_UNSIGNED: 'fetch' }, '0 3 * * *')).toBeUndefined();
  });

  it('says what will not run without the account, naming what is missing', () => {
    expect(describeMissingAccount(loadConfig(ACCOUNT))).toBeUndefined();
    const none = describeMissingAccount(loadConfig({ HOOKSYNC_JWKS_URL: 'http://127.0.0.1:9/jwks.json' }));
    expect(none).toMatch(/^without HOOKSYNC_API_BASE_URL and HOOKSYNC_API_KEY serve receives and stores/);
    expect(none).toContain('reconcile');
    expect(none).toContain('watches');
    const noKey = describeMissingAccount(loadConfig({ HOOKSYNC_API_BASE_URL: 'http://127.0.0.1:9000' }));
    expect(noKey).toMatch(/^without HOOKSYNC_API_KEY serve/);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_URL, DEFAULT_PORT, loadConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/errors.js';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      apiBaseUrl: undefined,
      apiKey: undefined,
      databaseUrl: DEFAULT_DATABASE_URL,
      host: '127.0.0.1',
      port: DEFAULT_PORT,
      jwksUrl: undefined,
      unsigned: 'reject',
      adminToken: undefined,
      logLevel: 'info',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable and derives the JWKS URL from the base URL', () => {
    const config = loadConfig({
      HOOKSYNC_API_BASE_URL: 'http://127.0.0.1:9000/prefix/',
      HOOKSYNC_API_KEY: 'not-a-uuid-and-that-is-fine',
      HOOKSYNC_DATABASE_URL: 'postgres://u:secret@db:5432/hooksync',
      HOOKSYNC_HOST: '0.0.0.0',
      HOOKSYNC_PORT: '9999',
      HOOKSYNC_UNSIGNED: 'fetch',
      HOOKSYNC_ADMIN_TOKEN: 't0ken',
      HOOKSYNC_LOG_LEVEL: 'debug',
    });
    expect(config.apiBaseUrl).toBe('http://127.0.0.1:9000/prefix');
    expect(config.jwksUrl).toBe('http://127.0.0.1:9000/prefix/.well-known/jwks.json');
    expect(config.apiKey).toBe('not-a-uuid-and-that-is-fine');
    expect(config.port).toBe(9999);
    expect(config.unsigned).toBe('fetch');
    expect(config.logLevel).toBe('debug');
  });

  it('lets flags win over the environment, and an explicit JWKS URL over the derived one', () => {
    const config = loadConfig(
      {
        HOOKSYNC_PORT: '1',
        HOOKSYNC_API_BASE_URL: 'http://a.example',
        HOOKSYNC_JWKS_URL: 'http://keys.example/k',
      },
      { port: '2', databaseUrl: '/tmp/x.db' },
    );
    expect(config.port).toBe(2);
    expect(config.databaseUrl).toBe('/tmp/x.db');
    expect(config.jwksUrl).toBe('http://keys.example/k');
  });

  it.each([
    ['HOOKSYNC_PORT', 'eighty', /HOOKSYNC_PORT must be an integer from 0 to 65535/],
    ['HOOKSYNC_PORT', '70000', /HOOKSYNC_PORT/],
    ['HOOKSYNC_UNSIGNED', 'allow', /HOOKSYNC_UNSIGNED must be one of reject, fetch/],
    ['HOOKSYNC_LOG_LEVEL', 'loud', /HOOKSYNC_LOG_LEVEL must be one of/],
    ['HOOKSYNC_API_BASE_URL', 'ftp://x', /HOOKSYNC_API_BASE_URL must be an http\(s\) URL/],
    ['HOOKSYNC_JWKS_URL', 'not a url', /HOOKSYNC_JWKS_URL/],
    [
      'HOOKSYNC_DATABASE_URL',
      'mysql://x/y',
      /HOOKSYNC_DATABASE_URL must be a SQLite file path or a postgres/,
    ],
  ])('refuses %s=%s with one line naming the variable', (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(message);
  });

  it('never echoes a secret in its errors', () => {
    let message = '';
    try {
      loadConfig({ HOOKSYNC_DATABASE_URL: 'postgres://user:hunter2@[bad' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/HOOKSYNC_DATABASE_URL/);
    expect(message).not.toMatch(/hunter2/);
  });
});

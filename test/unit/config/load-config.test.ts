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
      uiSessionMinutes: 120,
      allowInsecureHttp: false,
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
        HOOKSYNC_API_BASE_URL: 'https://a.example',
        HOOKSYNC_JWKS_URL: 'https://keys.example/k',
      },
      { port: '2', databaseUrl: '/tmp/x.db' },
    );
    expect(config.port).toBe(2);
    expect(config.databaseUrl).toBe('/tmp/x.db');
    expect(config.jwksUrl).toBe('https://keys.example/k');
  });

  it.each([
    ['HOOKSYNC_PORT', 'eighty', /HOOKSYNC_PORT must be an integer from 0 to 65535/],
    ['HOOKSYNC_PORT', '70000', /HOOKSYNC_PORT/],
    ['HOOKSYNC_UNSIGNED', 'allow', /HOOKSYNC_UNSIGNED must be one of reject, fetch/],
    ['HOOKSYNC_LOG_LEVEL', 'loud', /HOOKSYNC_LOG_LEVEL must be one of/],
    ['HOOKSYNC_API_BASE_URL', 'ftp://x', /HOOKSYNC_API_BASE_URL must be an http\(s\) URL/],
    ['HOOKSYNC_JWKS_URL', 'not a url', /HOOKSYNC_JWKS_URL/],
    ['HOOKSYNC_UI_SESSION_MINUTES', '0', /HOOKSYNC_UI_SESSION_MINUTES must be an integer from 1 to 10080/],
    ['HOOKSYNC_UI_SESSION_MINUTES', '90.5', /HOOKSYNC_UI_SESSION_MINUTES/],
    [
      'HOOKSYNC_ALLOW_INSECURE_HTTP',
      'sim:8788',
      /HOOKSYNC_ALLOW_INSECURE_HTTP must be 1, 0 or a comma-separated list of host names/,
    ],
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

  it('accepts http:// service and key-set URLs only for loopback hosts, unless explicitly allowed', () => {
    for (const base of [
      'http://127.0.0.1:8788',
      'http://127.8.9.10',
      'http://localhost:8788',
      'http://sim.localhost',
      'http://[::1]:8788',
      'http://0.0.0.0:8788',
      'https://api.example.com',
    ]) {
      expect(loadConfig({ HOOKSYNC_API_BASE_URL: base }).apiBaseUrl).toBe(base);
    }
    for (const [variable, value] of [
      ['HOOKSYNC_API_BASE_URL', 'http://api.example.com'],
      ['HOOKSYNC_API_BASE_URL', 'http://10.0.0.5:8788'],
      ['HOOKSYNC_API_BASE_URL', 'http://127.0.0.1.example.com'],
      ['HOOKSYNC_JWKS_URL', 'http://keys.example/jwks.json'],
    ] as const) {
      expect(() => loadConfig({ [variable]: value })).toThrow(
        new RegExp(
          `^${variable} must be https:// unless its host is loopback.*HOOKSYNC_ALLOW_INSECURE_HTTP=`,
        ),
      );
      const allowed = loadConfig({ [variable]: value, HOOKSYNC_ALLOW_INSECURE_HTTP: '1' });
      expect(variable === 'HOOKSYNC_JWKS_URL' ? allowed.jwksUrl : allowed.apiBaseUrl).toBe(value);
    }
    expect(loadConfig({ HOOKSYNC_ALLOW_INSECURE_HTTP: 'true' }).allowInsecureHttp).toBe(true);
    expect(loadConfig({}, { allowInsecureHttp: true }).allowInsecureHttp).toBe(true);
    // A list allows exactly the hosts it names, nothing else.
    const named = { HOOKSYNC_ALLOW_INSECURE_HTTP: 'sim, 10.0.0.5' };
    expect(loadConfig({ ...named, HOOKSYNC_API_BASE_URL: 'http://sim:8788' }).apiBaseUrl).toBe(
      'http://sim:8788',
    );
    expect(loadConfig({ ...named, HOOKSYNC_JWKS_URL: 'http://10.0.0.5/jwks.json' }).jwksUrl).toBe(
      'http://10.0.0.5/jwks.json',
    );
    expect(() => loadConfig({ ...named, HOOKSYNC_API_BASE_URL: 'http://simulator:8788' })).toThrow(
      /must be https:\/\/ unless its host is loopback.*HOOKSYNC_ALLOW_INSECURE_HTTP=simulator/,
    );
  });

  it('refuses a user name or password in a service or key-set URL, and never prints them', () => {
    for (const variable of ['HOOKSYNC_API_BASE_URL', 'HOOKSYNC_JWKS_URL']) {
      for (const value of [
        'https://user:hunter2@api.example.com',
        'https://hunter2@api.example.com/v1',
        'http://admin:hunter2@127.0.0.1:8788',
        'ftp://user:hunter2@x',
        'https://user:hunter2@[bad',
      ]) {
        let message = '';
        try {
          loadConfig({ [variable]: value, HOOKSYNC_ALLOW_INSECURE_HTTP: '1' });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as Error).message;
        }
        expect(message).toMatch(new RegExp(`^${variable} `));
        expect(message).not.toContain('hunter2');
        expect(message).not.toContain('user:');
      }
    }
  });

  it('reads how long a status page sign-in lasts', () => {
    expect(loadConfig({ HOOKSYNC_UI_SESSION_MINUTES: '30' }).uiSessionMinutes).toBe(30);
  });
});

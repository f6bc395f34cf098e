import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  credentialSources,
  resolveSalesforceCredentials,
  salesforceSchema,
} from '../../../../src/destinations/salesforce/salesforce-config.js';

const base = {
  name: 'sf',
  type: 'salesforce',
  login_url: 'https://acme.my.salesforce.com',
  auth: {
    grant: 'client_credentials',
    client_id: { env: 'SF_CLIENT_ID' },
    client_secret: { env: 'SF_CLIENT_SECRET' },
  },
};
const env = { SF_CLIENT_ID: '3MVG9client', SF_CLIENT_SECRET: 'S3CR3T-value' };
const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();

describe('salesforceSchema', () => {
  it('fills the documented defaults', () => {
    expect(salesforceSchema.parse(base)).toMatchObject({
      api_version: '62.0',
      account_key: 'Hooksync_Company_Id__c',
      person_key: 'Hooksync_Person_Id__c',
      id_field: 'sf_id',
      new_persons: 'contact-if-account',
      write: 'fill-empty',
      fields: {},
      max_share: 0.5,
      bulk_threshold: 2_000,
    });
  });

  it('refuses what it cannot use, naming the field', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ api_version: '45.0' }, 'api_version'],
      [{ max_share: 0 }, 'max_share'],
      [{ max_share: 1.5 }, 'max_share'],
      [{ new_persons: 'account' }, 'new_persons'],
      [{ fields: { 'Bad Name': 'overwrite' } }, 'fields'],
      [{ login_url: 'ftp://acme' }, 'login_url'],
      [{ login_url: 'https://user:pw@acme.my.salesforce.com' }, 'login_url'],
      [{ auth: { grant: 'password', client_id: { env: 'X' } } }, 'auth'],
      [
        { auth: { grant: 'client_credentials', client_id: { env: 'X' }, client_secret: 'literal-secret' } },
        'auth',
      ],
      [{ extra: true }, ''],
    ];
    for (const [change, field] of cases) {
      const result = salesforceSchema.safeParse({ ...base, ...change });
      expect(result.success, JSON.stringify(change)).toBe(false);
      expect(String(result.error?.issues[0]?.path[0] ?? '')).toBe(field);
    }
  });
});

describe('resolveSalesforceCredentials', () => {
  it('reads client credentials from the environment and names only their sources', () => {
    const config = salesforceSchema.parse(base);
    expect(resolveSalesforceCredentials(config, env)).toEqual({
      grant: 'client_credentials',
      clientId: '3MVG9client',
      clientSecret: 'S3CR3T-value',
    });
    expect(credentialSources(config)).toBe('SF_CLIENT_ID, SF_CLIENT_SECRET');
    expect(() => resolveSalesforceCredentials(config, { SF_CLIENT_ID: 'x' })).toThrow(
      'field auth.client_secret: environment variable SF_CLIENT_SECRET is not set',
    );
  });

  it('reads a JWT bearer key from a file, checks it is an RSA key, and picks the audience', () => {
    const files: Record<string, string> = {
      '/run/secrets/key.pem': pem,
      '/run/secrets/user': 'sync@acme.example\n',
      '/run/secrets/bad.pem': 'S3CR3T-not-a-key',
    };
    const readFile = (path: string) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error('no'), { code: 'ENOENT' });
      return text;
    };
    const jwt = (login_url: string, key = '/run/secrets/key.pem') =>
      salesforceSchema.parse({
        ...base,
        login_url,
        auth: {
          grant: 'jwt_bearer',
          client_id: { env: 'SF_CLIENT_ID' },
          username: { file: '/run/secrets/user' },
          private_key: { file: key },
        },
      });
    expect(resolveSalesforceCredentials(jwt('https://acme.my.salesforce.com'), env, readFile)).toMatchObject({
      grant: 'jwt_bearer',
      username: 'sync@acme.example',
      audience: 'https://login.salesforce.com',
    });
    expect(
      resolveSalesforceCredentials(jwt('https://acme--uat.sandbox.my.salesforce.com'), env, readFile),
    ).toMatchObject({ audience: 'https://test.salesforce.com' });
    let message = '';
    try {
      resolveSalesforceCredentials(
        jwt('https://acme.my.salesforce.com', '/run/secrets/bad.pem'),
        env,
        readFile,
      );
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'field auth.private_key: the file /run/secrets/bad.pem is not a PEM RSA private key',
    );
    expect(message).not.toContain('S3CR3T');
    expect(() =>
      resolveSalesforceCredentials(jwt('https://acme.my.salesforce.com', '/nope'), env, readFile),
    ).toThrow('the file /nope cannot be read (ENOENT)');
  });

  it('takes plain http only for loopback or a host named in HOOKSYNC_ALLOW_INSECURE_HTTP', () => {
    const at = (login_url: string) => salesforceSchema.parse({ ...base, login_url });
    expect(() => resolveSalesforceCredentials(at('http://127.0.0.1:4000'), env)).not.toThrow();
    expect(() => resolveSalesforceCredentials(at('http://sf-proxy:8080'), env)).toThrow(
      'field login_url: must be https://',
    );
    expect(() =>
      resolveSalesforceCredentials(at('http://sf-proxy:8080'), {
        ...env,
        HOOKSYNC_ALLOW_INSECURE_HTTP: 'sf-proxy',
      }),
    ).not.toThrow();
  });
});

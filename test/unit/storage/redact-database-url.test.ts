import { describe, expect, it } from 'vitest';
import { redactDatabaseUrl } from '../../../src/storage/redact-database-url.js';

describe('redactDatabaseUrl', () => {
  it('hides the password of a postgres URL', () => {
    const redacted = redactDatabaseUrl('postgres://app:s3cr3t-pw@db.internal:5432/hooksync');
    expect(redacted).not.toContain('s3cr3t-pw');
    expect(redacted).toContain('app:***@db.internal:5432/hooksync');
  });

  it('hides password-like query parameters', () => {
    const redacted = redactDatabaseUrl('postgresql://app@db/h?sslpassword=topsecret&application_name=x');
    expect(redacted).not.toContain('topsecret');
    expect(redacted).toContain('application_name=x');
  });

  it('leaves a SQLite path and a password-less URL alone', () => {
    expect(redactDatabaseUrl('./data/hooksync.db')).toBe('./data/hooksync.db');
    expect(redactDatabaseUrl('postgres://postgres@127.0.0.1:5432/test')).toBe(
      'postgres://postgres@127.0.0.1:5432/test',
    );
  });

  it('never echoes an unparseable URL', () => {
    expect(redactDatabaseUrl('postgres://a:b@[bad')).not.toContain('a:b');
  });
});

import { describe, expect, it } from 'vitest';
import { withDatabaseSchema } from '../../../src/config/database-schema.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/errors.js';
import { databaseSchemaOf } from '../../../src/storage/database-schema-of.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';

const PG = 'postgres://u:secret@db:5432/warehouse';

describe('HOOKSYNC_DATABASE_SCHEMA', () => {
  it('folds a named schema into a Postgres URL as its search_path, read back by storage', () => {
    const config = loadConfig({ HOOKSYNC_DATABASE_URL: PG, HOOKSYNC_DATABASE_SCHEMA: 'team_hooksync' });
    expect(config.databaseSchema).toBe('team_hooksync');
    expect(databaseSchemaOf(config.databaseUrl)).toBe('team_hooksync');
    expect(new URL(config.databaseUrl).password).toBe('secret');
  });

  it('keeps options the URL already has, the schema set after them', () => {
    const url = withDatabaseSchema(`${PG}?options=-c%20statement_timeout%3D5000&sslmode=disable`, 'hs');
    expect(new URL(url).searchParams.get('options')).toBe('-c statement_timeout=5000 -c search_path=hs');
    expect(new URL(url).searchParams.get('sslmode')).toBe('disable');
    expect(databaseSchemaOf(url)).toBe('hs');
  });

  it('leaves the URL alone for public (the default) and for a SQLite path', () => {
    expect(loadConfig({ HOOKSYNC_DATABASE_URL: PG }).databaseUrl).toBe(PG);
    expect(loadConfig({ HOOKSYNC_DATABASE_URL: PG }).databaseSchema).toBe('public');
    expect(withDatabaseSchema(PG, 'public')).toBe(PG);
    expect(loadConfig({ HOOKSYNC_DATABASE_SCHEMA: 'hs' }).databaseUrl).toBe('./hooksync.db');
    expect(databaseSchemaOf(PG)).toBeUndefined();
  });

  it.each(['Team', '1team', 'team-data', 'a;drop table x', 'x'.repeat(64), 'tëam'])(
    'refuses %j in one line naming the variable',
    (name) => {
      expect(() => loadConfig({ HOOKSYNC_DATABASE_SCHEMA: name })).toThrow(ConfigError);
      expect(() => loadConfig({ HOOKSYNC_DATABASE_SCHEMA: name })).toThrow(
        /^HOOKSYNC_DATABASE_SCHEMA must be/,
      );
    },
  );

  it('makes a command exit 2 with that line, nothing opened', async () => {
    const run = await runCliCaptured(['migrate'], {
      env: { HOOKSYNC_DATABASE_URL: PG, HOOKSYNC_DATABASE_SCHEMA: 'Bad-Name' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('HOOKSYNC_DATABASE_SCHEMA must be');
  });
});

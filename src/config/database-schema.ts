/**
 * HOOKSYNC_DATABASE_SCHEMA: the Postgres schema every table, view and the migration bookkeeping live in.
 * It travels inside the database URL as libpq's standard `options=-c search_path=NAME` parameter, so that
 * every connection (the receiver's pool, its store worker, the dispatcher, a CLI command) lands in it
 * without each caller passing it on; storage reads it back (storage/database-schema-of.ts) to create the schema and to migrate in it.
 */

/** The schema Postgres uses when none is named. */
export const DEFAULT_DATABASE_SCHEMA = 'public';

/** A schema name hooksync accepts: a lower-case SQL identifier that needs no quoting (at most 63 bytes). */
export const DATABASE_SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Whether `name` is a schema name hooksync accepts. */
export function isDatabaseSchemaName(name: string): boolean {
  return DATABASE_SCHEMA_NAME.test(name);
}

/**
 * `url` with its connections' search_path set to `schema` (added to any `options` the URL has). A SQLite
 * path, or the default schema, is returned as it is.
 */
export function withDatabaseSchema(url: string, schema: string): string {
  if (!isDatabaseSchemaName(schema)) throw new TypeError(`not a schema name: ${schema}`);
  if (schema === DEFAULT_DATABASE_SCHEMA || !/^postgres(ql)?:\/\//i.test(url)) return url;
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options');
  const setting = `-c search_path=${schema}`;
  parsed.searchParams.set('options', options === null ? setting : `${options} ${setting}`);
  return parsed.toString();
}

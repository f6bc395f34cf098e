/**
 * The Postgres schema a database URL names through libpq's `options=-c search_path=NAME` (where
 * config/database-schema.ts puts HOOKSYNC_DATABASE_SCHEMA): storage reads it back to create the schema and
 * to keep the migration bookkeeping in it.
 */

const SEARCH_PATH = /(?:^|\s)-c\s*search_path=([a-z_][a-z0-9_]*)(?=\s|,|$)/;

/** The schema a Postgres URL's `options` put first on the search_path, if any. */
export function databaseSchemaOf(url: string): string | undefined {
  let options: string | null;
  try {
    options = new URL(url).searchParams.get('options');
  } catch {
    return undefined;
  }
  if (options === null) return undefined;
  // The last setting wins in Postgres, as here.
  let schema: string | undefined;
  for (const match of options.matchAll(new RegExp(SEARCH_PATH, 'g'))) schema = match[1];
  return schema;
}

/**
 * Postgres for tests: each test file gets a database of its own, so parallel files never collide.
 * Without TEST_DATABASE_URL the suites that need it report themselves skipped with the reason.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server to test against, or undefined on a laptop without one. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/** Title suffix that tells why a Postgres suite did not run. */
export const PG_SKIP_REASON = 'skipped: TEST_DATABASE_URL is not set';

/** `describe` title for a Postgres suite: names the reason when it is skipped. */
export function pgSuiteName(name: string): string {
  return TEST_DATABASE_URL ? name : `${name} (${PG_SKIP_REASON})`;
}

/** A fresh, empty database on the test server; `drop()` removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new TypeError('createTestDatabase needs TEST_DATABASE_URL');
  const name = `hs_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

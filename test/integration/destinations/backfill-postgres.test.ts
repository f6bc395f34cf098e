/** The backfill suite on Postgres (skipped, with the reason in its title, when TEST_DATABASE_URL is unset). */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineBackfillSuite } from './backfill-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('destinations backfill on Postgres'), () => {
  defineBackfillSuite(createTestDatabase);
});

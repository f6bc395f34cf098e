/** The salesforce destination against the stand-in, on Postgres (skipped, reason in its title, without TEST_DATABASE_URL). */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineSalesforceSuite } from './salesforce-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('salesforce destination on Postgres'), () => {
  defineSalesforceSuite(createTestDatabase);
});

/** The pipedrive destination on Postgres (skipped without TEST_DATABASE_URL). */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { definePipedriveSuite } from './pipedrive-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('pipedrive on Postgres'), () => {
  definePipedriveSuite(createTestDatabase);
});

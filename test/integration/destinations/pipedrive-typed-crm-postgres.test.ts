/** A Pipedrive company as a sales team typed it, adopted without duplicates, its mover moved, on Postgres. */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { definePipedriveTypedCrmSuite } from './pipedrive-typed-crm-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('pipedrive typed CRM on Postgres'), () => {
  definePipedriveTypedCrmSuite(createTestDatabase);
});

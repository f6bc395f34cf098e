/** An org as a sales team typed it, adopted at sync time without duplicates, its mover moved, on Postgres. */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineSalesforceTypedCrmSuite } from './salesforce-typed-crm-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('salesforce typed CRM on Postgres'), () => {
  defineSalesforceTypedCrmSuite(createTestDatabase);
});

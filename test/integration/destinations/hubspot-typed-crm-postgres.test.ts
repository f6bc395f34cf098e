/** A portal as a sales team typed it, adopted without duplicates, on Postgres (skipped without TEST_DATABASE_URL). */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineHubSpotTypedCrmSuite } from './hubspot-typed-crm-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('hubspot typed CRM on Postgres'), () => {
  defineHubSpotTypedCrmSuite(createTestDatabase);
});

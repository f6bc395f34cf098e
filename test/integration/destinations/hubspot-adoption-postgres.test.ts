/** Adoption at sync time, carried ids and answers matched by what was sent, on Postgres (skipped without TEST_DATABASE_URL). */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineHubSpotAdoptionSuite } from './hubspot-adoption-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('hubspot adoption on Postgres'), () => {
  defineHubSpotAdoptionSuite(createTestDatabase);
});

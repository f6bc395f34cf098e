/** The slack destination's suite on Postgres (skipped, with the reason in its title, without TEST_DATABASE_URL). */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineSlackSuite } from './slack-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('slack destination on Postgres'), () => {
  defineSlackSuite(createTestDatabase);
});

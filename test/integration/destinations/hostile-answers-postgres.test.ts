/** Issue 43's hostile CRM answers on Postgres (skipped, reason in its title, without TEST_DATABASE_URL). */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineHostileAnswersSuite } from './hostile-answers-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('hostile CRM answers on Postgres'), () => {
  defineHostileAnswersSuite(createTestDatabase);
});

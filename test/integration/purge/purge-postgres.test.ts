/** `hooksync purge` on Postgres (skipped, with the reason in its title, when TEST_DATABASE_URL is unset). */
import { describe } from 'vitest';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { definePurgeSuite } from './purge-suite.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('purge on Postgres'), () => {
  definePurgeSuite({ provision: createTestDatabase });
});

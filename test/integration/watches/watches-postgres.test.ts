import { describe, it } from 'vitest';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineWatchesSuite } from './watches-suite.js';

if (TEST_DATABASE_URL) describe('watches on postgres', () => defineWatchesSuite('postgres'));
else describe(pgSuiteName('watches on postgres'), () => it.skip('needs TEST_DATABASE_URL'));

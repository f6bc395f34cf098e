import { describe, it } from 'vitest';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { definePlaysSuite } from './plays-suite.js';

if (TEST_DATABASE_URL) describe('plays on postgres', () => definePlaysSuite('postgres'));
else describe(pgSuiteName('plays on postgres'), () => it.skip('needs TEST_DATABASE_URL'));

import { describe, it } from 'vitest';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineCrmSourcesSuite } from './crm-sources-suite.js';

if (TEST_DATABASE_URL) describe('watches over a CRM on postgres', () => defineCrmSourcesSuite('postgres'));
else describe(pgSuiteName('watches over a CRM on postgres'), () => it.skip('needs TEST_DATABASE_URL'));

import { describe, it } from 'vitest';
import { pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { defineWatchesCrmSuite } from './watches-crm-suite.js';

if (TEST_DATABASE_URL)
  describe('watch changes into CRM destinations on postgres', () =>
    defineWatchesCrmSuite('postgres', 'hubspot'));
else
  describe(pgSuiteName('watch changes into CRM destinations on postgres'), () =>
    it.skip('needs TEST_DATABASE_URL'),
  );

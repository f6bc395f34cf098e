/** The backfill suite on SQLite. */
import { describe } from 'vitest';
import { defineBackfillSuite } from './backfill-suite.js';
import { provisionSqlite } from './destinations-context.js';

describe('destinations backfill on SQLite', () => {
  defineBackfillSuite(provisionSqlite);
});

/** The destinations suite on SQLite. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { defineDestinationsSuite } from './destinations-suite.js';

describe('destinations on SQLite', () => {
  defineDestinationsSuite(provisionSqlite);
});

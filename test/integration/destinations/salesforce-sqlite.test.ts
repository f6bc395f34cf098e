/** The salesforce destination against the stand-in, on a SQLite file. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { defineSalesforceSuite } from './salesforce-suite.js';

describe('salesforce destination on SQLite', () => {
  defineSalesforceSuite(provisionSqlite);
});

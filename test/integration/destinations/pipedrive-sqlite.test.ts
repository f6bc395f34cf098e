/** The pipedrive destination on a SQLite file. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { definePipedriveSuite } from './pipedrive-suite.js';

describe('pipedrive on SQLite', () => {
  definePipedriveSuite(provisionSqlite);
});

/** A Pipedrive company as a sales team typed it, adopted without duplicates, its mover moved, on SQLite. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { definePipedriveTypedCrmSuite } from './pipedrive-typed-crm-suite.js';

describe('pipedrive typed CRM on SQLite', () => {
  definePipedriveTypedCrmSuite(provisionSqlite);
});

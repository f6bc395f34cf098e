/** An org as a sales team typed it, adopted at sync time without duplicates, its mover moved, on SQLite. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { defineSalesforceTypedCrmSuite } from './salesforce-typed-crm-suite.js';

describe('salesforce typed CRM on SQLite', () => {
  defineSalesforceTypedCrmSuite(provisionSqlite);
});

/** A portal as a sales team typed it, adopted without duplicates, on SQLite. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { defineHubSpotTypedCrmSuite } from './hubspot-typed-crm-suite.js';

describe('hubspot typed CRM on SQLite', () => {
  defineHubSpotTypedCrmSuite(provisionSqlite);
});

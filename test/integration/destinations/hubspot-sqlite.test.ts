/** The hubspot destination against the stand-in, on a SQLite file. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { defineHubSpotSuite } from './hubspot-suite.js';

describe('hubspot destination on SQLite', () => {
  defineHubSpotSuite(provisionSqlite);
});

/** Adoption at sync time, carried ids and answers matched by what was sent, on a SQLite file. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { defineHubSpotAdoptionSuite } from './hubspot-adoption-suite.js';

describe('hubspot adoption on SQLite', () => {
  defineHubSpotAdoptionSuite(provisionSqlite);
});

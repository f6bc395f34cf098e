/** The slack destination's suite on SQLite. */
import { describe } from 'vitest';
import { provisionSqlite } from '../destinations/destinations-context.js';
import { defineSlackSuite } from './slack-suite.js';

describe('slack destination on SQLite', () => {
  defineSlackSuite(provisionSqlite);
});

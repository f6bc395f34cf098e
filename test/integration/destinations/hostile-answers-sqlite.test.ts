/** Issue 43's hostile CRM answers on a SQLite file. */
import { describe } from 'vitest';
import { provisionSqlite } from './destinations-context.js';
import { defineHostileAnswersSuite } from './hostile-answers-suite.js';

describe('hostile CRM answers on SQLite', () => {
  defineHostileAnswersSuite(provisionSqlite);
});

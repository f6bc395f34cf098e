/**
 * A Salesforce source's `soql_where`: taken as the user's own condition, refused only for what would break the
 * query it goes into (the source adds `AND Id > '…' ORDER BY Id LIMIT 2000`).
 */
import { describe, expect, it } from 'vitest';
import { MAX_SOQL_WHERE_CHARS, soqlWhereProblem } from '../../../src/destinations/salesforce/soql-where.js';

describe('soqlWhereProblem', () => {
  it('takes conditions, relationship fields, semi-joins and keywords inside string literals', () => {
    for (const clause of [
      "Email LIKE '%@acme.com'",
      "Champion__c = true AND (Account.Type = 'Customer' OR Account.Type = 'Partner')",
      "AccountId IN (SELECT Id FROM Account WHERE Industry = 'Banking')",
      "Title = 'VP, Order By Limit (Sales'",
      "Name = 'O\\'Brien'",
    ]) {
      expect(soqlWhereProblem(clause), clause).toBeUndefined();
    }
  });

  it('refuses what would break the query, in one short sentence', () => {
    expect(soqlWhereProblem("WHERE Email = 'a@b.co'")).toBe('is the condition only, without the word WHERE');
    expect(soqlWhereProblem("Email = 'a@b.co")).toBe('has a string literal that is not closed');
    expect(soqlWhereProblem('(A = 1')).toBe('leaves a parenthesis open');
    expect(soqlWhereProblem('A = 1) OR (B = 2')).toBe('closes a parenthesis it did not open');
    expect(soqlWhereProblem('A = 1; DELETE')).toBe('must be one condition, without ";"');
    expect(soqlWhereProblem('A = 1 ORDER BY Name')).toMatch(/found "ORDER BY"/);
    expect(soqlWhereProblem('A = 1 limit 10')).toMatch(/found "LIMIT"/);
    expect(soqlWhereProblem('A = 1 FOR UPDATE')).toMatch(/found "FOR UPDATE"/);
    expect(soqlWhereProblem(`Name = '${'x'.repeat(MAX_SOQL_WHERE_CHARS)}'`)).toBe(
      `must be at most ${MAX_SOQL_WHERE_CHARS} characters`,
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  keyQueries,
  MAX_QUERY_URI_CHARS,
  queryUri,
  soqlString,
} from '../../../../src/destinations/salesforce/soql.js';

const BASE = '/services/data/v62.0';

/** The keys of an `IN (…)` list, read back as SOQL reads string literals. */
function keysOf(soql: string): string[] {
  const list = soql.slice(soql.indexOf(' IN (') + 5, -1);
  const keys: string[] = [];
  const literal = /'((?:[^'\\]|\\.)*)'/g;
  for (let match = literal.exec(list); match !== null; match = literal.exec(list))
    keys.push(match[1]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c)));
  return keys;
}

describe('soqlString', () => {
  it('escapes quotes, backslashes and line breaks', () => {
    expect(soqlString("o'brien\\x\n")).toBe("'o\\'brien\\\\x\\n'");
  });
});

describe('keyQueries', () => {
  it('covers every distinct key once, in chunks whose URI stays within 2,000 characters', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 120 }), { maxLength: 400 }), (keys) => {
        const queries = keyQueries({
          base: BASE,
          object: 'Contact',
          fields: ['Title', 'Account.Hooksync_Company_Id__c'],
          keyField: 'Hooksync_Person_Id__c',
          keys,
        });
        for (const soql of queries) {
          expect(queryUri(BASE, soql).length).toBeLessThanOrEqual(MAX_QUERY_URI_CHARS);
          expect(
            soql.startsWith(
              'SELECT Id, Hooksync_Person_Id__c, Title, Account.Hooksync_Company_Id__c FROM Contact WHERE Hooksync_Person_Id__c IN (',
            ),
          ).toBe(true);
        }
        const sent = queries.flatMap(keysOf);
        expect(sent).toEqual([...new Set(keys)]);
      }),
    );
  });

  it('fills chunks: about a hundred short domains a query', () => {
    const keys = Array.from({ length: 1_000 }, (_, i) => `company-${i}.com`);
    const queries = keyQueries({
      base: BASE,
      object: 'Account',
      fields: ['Name'],
      keyField: 'Hooksync_Company_Id__c',
      keys,
    });
    expect(queries.length).toBeLessThanOrEqual(15);
    expect(queries.length).toBeGreaterThanOrEqual(10);
  });

  it('refuses names that are not SOQL names and a key too long for any URI', () => {
    expect(() =>
      keyQueries({ base: BASE, object: 'Contact; DELETE', fields: [], keyField: 'X__c', keys: ['a'] }),
    ).toThrow(TypeError);
    expect(() =>
      keyQueries({ base: BASE, object: 'Contact', fields: [], keyField: 'X__c', keys: ['é'.repeat(400)] }),
    ).toThrow(TypeError);
  });
});

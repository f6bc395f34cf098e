/** Values checked before sending: a bad one is left out with a warning, the rest go. */
import { describe, expect, it } from 'vitest';
import {
  checkValue,
  checkValues,
  type FieldDefinition as PropertyDefinition,
} from '../../../../src/destinations/crm/check-values.js';

const definitions = new Map<string, PropertyDefinition>(
  [
    { name: 'email', type: 'string' },
    { name: 'industry', type: 'enumeration', options: [{ value: 'COMPUTER_SOFTWARE' }, { value: 'RETAIL' }] },
    { name: 'numberofemployees', type: 'number' },
    { name: 'hooksync_checked_on', type: 'date' },
    { name: 'name', type: 'string' },
  ].map((d) => [d.name, d]),
);

describe('checkValues', () => {
  it('keeps good values and leaves each bad one out with why', () => {
    const { properties, warnings } = checkValues(
      {
        name: 'Acme',
        email: 'example.lcom',
        industry: 'Software',
        numberofemployees: 'many',
        hooksync_checked_on: '1635535865000',
        founded_year: '1999',
      },
      definitions,
      'HubSpot',
    );
    expect(properties).toEqual({ name: 'Acme' });
    expect(warnings).toEqual([
      '"example.lcom" is not an e-mail address',
      '"Software" is not an option of industry',
      '"many" is not a number',
      '"1635535865000" is not a date at midnight UTC',
      'property "founded_year" does not exist in HubSpot',
    ]);
  });

  it('sends dates as the day, multi-select options each checked, numbers as given', () => {
    const { properties, warnings } = checkValues(
      {
        hooksync_checked_on: '2026-11-25T00:00:00Z',
        industry: 'RETAIL;COMPUTER_SOFTWARE',
        numberofemployees: '250',
      },
      definitions,
      'HubSpot',
    );
    expect(warnings).toEqual([]);
    expect(properties).toEqual({
      hooksync_checked_on: '2026-11-25',
      industry: 'RETAIL;COMPUTER_SOFTWARE',
      numberofemployees: '250',
    });
    expect(
      checkValues({ hooksync_checked_on: String(Date.UTC(2026, 0, 2)) }, definitions).properties,
    ).toEqual({
      hooksync_checked_on: '2026-01-02',
    });
  });

  it('sends values unchecked when the definitions could not be read', () => {
    expect(checkValues({ anything: 'x' }, undefined)).toEqual({
      properties: { anything: 'x' },
      warnings: [],
    });
  });
});

describe('checkValue: e-mail fields and lengths (Salesforce)', () => {
  it('checks an e-mail field whatever its name, and cuts text to maxLength on a code point', () => {
    expect(checkValue({ name: 'Email', type: 'email' }, 'Email', 'not an address')).toEqual({
      problem: '"not an address" is not an e-mail address',
    });
    expect(checkValue({ name: 'Email', type: 'email' }, 'Email', 'ada@acme.com')).toEqual({
      value: 'ada@acme.com',
    });
    expect(checkValue({ name: 'Title', type: 'string', maxLength: 5 }, 'Title', 'abcdefgh')).toEqual({
      value: 'abcde',
    });
    expect(checkValue({ name: 'Title', type: 'string', maxLength: 5 }, 'Title', 'abcd😀')).toEqual({
      value: 'abcd',
    });
    expect(checkValue({ name: 'Title', type: 'string', maxLength: 5 }, 'Title', 'ab😀cd')).toEqual({
      value: 'ab😀c',
    });
    expect(checkValue({ name: 'Title', type: 'string' }, 'Title', 'x'.repeat(300))).toEqual({
      value: 'x'.repeat(300),
    });
  });
});

import { describe, expect, it } from 'vitest';
import { checkValues } from '../../../../src/destinations/crm/check-values.js';
import { tokenCost } from '../../../../src/destinations/pipedrive/pipedrive-answer.js';
import {
  definitionsOf,
  encodeBody,
  type PipedriveField,
} from '../../../../src/destinations/pipedrive/pipedrive-fields.js';

const HASH = 'a'.repeat(40);
const field = (key: string, name: string, type: string, options: PipedriveField['options'] = []) =>
  [name, { key, name, type, options }] as const;
const fields = new Map<string, PipedriveField>([
  field('name', 'Name', 'varchar'),
  field('email', 'Email', 'varchar'),
  field('industry', 'Industry', 'enum', [
    { id: 1, label: 'Software' },
    { id: 2, label: 'Retail' },
  ]),
  field('employee_count', 'Number of employees', 'double'),
  field(HASH, 'Job title', 'varchar'),
]);

describe('Pipedrive value fitting (field definitions → the core check → the v2 body)', () => {
  const fitted = (properties: Record<string, string>) => {
    const checked = checkValues(properties, definitionsOf(fields), 'Pipedrive');
    return { ...checked, body: encodeBody(fields, checked.properties, undefined) };
  };

  it('cuts a Text value to 255 characters, never inside a character pair', () => {
    const { body, warnings } = fitted({ Name: `${'x'.repeat(254)}😀tail`, 'Job title': 'y'.repeat(300) });
    expect(body.name).toBe('x'.repeat(254));
    expect(body.custom_fields).toEqual({ [HASH]: 'y'.repeat(255) });
    expect(warnings).toEqual([]);
  });

  it('sends an enumeration label as its option id, and leaves an unknown label out with a warning', () => {
    expect(fitted({ Industry: 'Retail' }).body).toEqual({ industry: 2 });
    const unknown = fitted({ Industry: 'Industrial Automation' });
    expect(unknown.body).toEqual({});
    expect(unknown.warnings).toEqual(['"Industrial Automation" is not an option of Industry']);
  });

  it('sends an e-mail as the primary of emails only when it is one, and a number as a number', () => {
    expect(fitted({ Email: 'a@b.example', 'Number of employees': '1840' }).body).toEqual({
      emails: [{ value: 'a@b.example', primary: true, label: 'work' }],
      employee_count: 1840,
    });
    const bad = fitted({ Email: 'not an address' });
    expect(bad.body).toEqual({});
    expect(bad.warnings).toEqual(['"not an address" is not an e-mail address']);
  });
});

describe('tokenCost (v2 costs, §1)', () => {
  it.each([
    ['GET', '/api/v2/persons/12?custom_fields=abc', 1],
    ['GET', '/api/v2/persons?ids=1,2', 10],
    ['POST', '/api/v2/organizations', 5],
    ['PATCH', '/api/v2/organizations/7', 5],
    ['GET', '/api/v2/persons/search?term=x&exact_match=true', 20],
    ['GET', '/api/v1/personFields', 20],
    ['POST', '/api/v1/organizationFields', 10],
  ])('%s %s costs %d', (method, path, tokens) => {
    expect(tokenCost(method, path)).toBe(tokens);
  });
});

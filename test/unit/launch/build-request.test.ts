import { describe, expect, it } from 'vitest';
import { buildRequest, createRequestPlan } from '../../../src/launch/build-request.js';
import { OPERATIONS } from '../../../src/launch/launch-operations.js';
import { rowKey } from '../../../src/launch/row-key.js';
import { typeCell } from '../../../src/launch/type-cell.js';

describe('cell types read from the contract', () => {
  it('types each Search Contact field by its schema', () => {
    const fields = OPERATIONS.search.fields;
    expect(fields.get('page_size')).toBe('integer');
    expect(fields.get('page_number')).toBe('integer');
    expect(fields.get('seniorities')).toBe('list');
    expect(fields.get('company_employee_ranges')).toBe('list');
    expect(fields.get('title_filters')).toBe('object-list');
    expect(fields.get('title_lists')).toBe('object-list');
    expect(fields.get('custom_fields')).toBe('object');
    expect(fields.get('domain')).toBe('string');
    expect(fields.get('experience_start_date')).toBe('string');
    expect([...OPERATIONS.reveal.fields.keys()]).toEqual(['ip', 'webhook_url', 'custom_fields']);
    expect(OPERATIONS['job-change'].fields.has('contact_full_name')).toBe(true);
  });

  it.each([
    ['list', 'Vice President, Director', ['Vice President', 'Director']],
    ['list', '["Owner","CXO"]', ['Owner', 'CXO']],
    ['list', 'a,,b,', ['a', 'b']],
    ['integer', ' 25 ', 25],
    ['object-list', '{"name":"n","filter":"f"}', [{ name: 'n', filter: 'f' }]],
    ['object-list', '[{"name":"n","filter":"f"}]', [{ name: 'n', filter: 'f' }]],
    ['object', '{"a":1}', { a: 1 }],
    ['string', '  acme.com ', 'acme.com'],
  ] as const)('%s cell %j', (type, text, value) => {
    expect(typeCell('f', type, text)).toEqual({ value });
  });

  it.each([
    ['integer', '2.5', 'f: "2.5" is not an integer'],
    ['integer', 'ten', 'f: "ten" is not an integer'],
    ['list', '[oops', 'f: starts with "[" but is not a JSON array'],
    ['object', 'x', 'f: must be a JSON object'],
  ] as const)('%s cell %j is a problem', (type, text, problem) => {
    expect(typeCell('f', type, text)).toEqual({ problem });
  });
});

describe('rows into requests', () => {
  it('maps, sets, carries and checks with the contract', () => {
    const plan = createRequestPlan(OPERATIONS['job-change'], {
      map: ['professional_email=Email'],
      set: ['company_domain=acme.com'],
      carry: ['Id', 'owner=Owner Name'],
      webhookUrl: 'https://hooks.example.com/webhooks',
    });
    const built = buildRequest(plan, { Email: 'jane@acme.com', Id: '003A', 'Owner Name': 'Sam', extra: 'x' });
    expect(built).toEqual({
      request: {
        professional_email: 'jane@acme.com',
        company_domain: 'acme.com',
        webhook_url: 'https://hooks.example.com/webhooks',
        custom_fields: { Id: '003A', owner: 'Sam' },
      },
    });
    expect(buildRequest(plan, { Email: 'not-an-email', Id: '1' }).problems).toEqual([
      'professional_email: must be an email address like jane@acme.com',
    ]);
    expect(buildRequest(plan, { Id: '1' }).problems?.[0]).toMatch(/^person: give at least one of/);
  });

  it('refuses flags it cannot use, in one line', () => {
    expect(() => createRequestPlan(OPERATIONS.reveal, { map: ['domain=x'] })).toThrow(
      /--map: "domain" is not a request field of reveal/,
    );
    expect(() => createRequestPlan(OPERATIONS.search, { set: ['page_size=big'] })).toThrow(
      '--set page_size: "big" is not an integer',
    );
    expect(() => createRequestPlan(OPERATIONS.reveal, { carry: ['Record ID'] })).toThrow(
      /--carry: "Record ID" cannot be a custom_fields key/,
    );
    expect(() => createRequestPlan(OPERATIONS.reveal, { pages: 2 })).toThrow(
      '--pages applies to search only',
    );
  });

  it('checks the last page of --pages against the page_number limit', () => {
    const plan = createRequestPlan(OPERATIONS.search, { pages: 5 });
    expect(buildRequest(plan, { domain: 'acme.com', page_number: '96' }).request).toBeDefined();
    expect(buildRequest(plan, { domain: 'acme.com', page_number: '97' }).problems?.[0]).toMatch(
      /^page_number: .* \(page 101 of --pages 5\)$/,
    );
  });

  it('keys a request by operation and content, not by webhook_url or key order', () => {
    const a = rowKey('reveal', {
      ip: '1.2.3.4',
      custom_fields: { a: '1', b: '2' },
      webhook_url: 'https://x',
    });
    const b = rowKey('reveal', { custom_fields: { b: '2', a: '1' }, ip: '1.2.3.4' });
    expect(a).toBe(b);
    expect(rowKey('reveal', { ip: '1.2.3.5' })).not.toBe(rowKey('reveal', { ip: '1.2.3.4' }));
    expect(rowKey('search', { domain: 'a.com', page_number: 2 })).not.toBe(
      rowKey('search', { domain: 'a.com', page_number: 1 }),
    );
  });
});

import { expect, it } from 'vitest';
import { groupWarnings } from '../../../../src/destinations/crm/group-warnings.js';

it('groups a batch of warnings per object and per field (per option), counting records, without other values', () => {
  const records = [
    ...Array.from({ length: 700 }, (_, i) => ({
      object: 'companies',
      warnings: [
        'property "industry_x" does not exist in Pipedrive',
        `"Size ${i % 2}" is not an option of size`,
      ],
    })),
    {
      object: 'contacts',
      warnings: ['"maria@@globex" is not an e-mail address', '"maria@@globex" is not an e-mail address'],
    },
    { object: 'contacts', warnings: [] },
  ];
  const grouped = groupWarnings(records);
  expect(grouped.get('companies')).toEqual([
    { warning: 'property "industry_x" does not exist in Pipedrive', records: 700 },
    { warning: '"Size 0" is not an option of size', records: 350 },
    { warning: '"Size 1" is not an option of size', records: 350 },
  ]);
  expect(grouped.get('contacts')).toEqual([{ warning: 'a value is not an e-mail address', records: 1 }]);
  expect(JSON.stringify([...grouped])).not.toContain('maria');
});

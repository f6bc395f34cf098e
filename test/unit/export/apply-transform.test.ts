import { describe, expect, it } from 'vitest';
import { compileTransform, looseKey, toCellText } from '../../../src/export/apply-transform.js';
import { transformSchema } from '../../../src/export/template-schema.js';

function run(
  transform: unknown,
  value: unknown,
  fields: Record<string, unknown> = {},
  tables = new Map(),
): string {
  const compiled = compileTransform(transformSchema.parse(transform), tables);
  return toCellText(compiled(value, (path) => fields[path]));
}

describe('toCellText', () => {
  it('writes empty cells for missing values, never "null"', () => {
    expect(toCellText(null)).toBe('');
    expect(toCellText(undefined)).toBe('');
    expect(toCellText(Number.NaN)).toBe('');
  });
  it('keeps int64 digits and writes JSON for structures', () => {
    expect(toCellText(9007199254740993n)).toBe('9007199254740993');
    expect(toCellText(1840)).toBe('1840');
    expect(toCellText(false)).toBe('false');
    expect(toCellText(['a', 1])).toBe('["a",1]');
  });
});

describe('transforms', () => {
  it('join: array elements with a separator, skipping empty ones', () => {
    expect(run({ op: 'join' }, ['Kubernetes', null, 'ROS 2'])).toBe('Kubernetes; ROS 2');
    expect(run({ op: 'join', separator: '|' }, ['a', 'b'])).toBe('a|b');
    expect(run({ op: 'join' }, 'not an array')).toBe('not an array');
  });

  it('date: the calendar date as written, in the format asked; blank when not a date', () => {
    const at = '2026-03-06T23:20:30.123456-02:00';
    expect(run({ op: 'date', format: 'YYYY-MM-DD' }, at)).toBe('2026-03-06');
    expect(run({ op: 'date', format: 'MM/DD/YYYY' }, at)).toBe('03/06/2026');
    expect(run({ op: 'date', format: 'DD/MM/YYYY' }, at)).toBe('06/03/2026');
    expect(run({ op: 'date', format: 'YYYY' }, '2015-06-30')).toBe('2015');
    expect(run({ op: 'date', format: 'iso' }, at)).toBe('2026-03-07T01:20:30.123Z');
    expect(run({ op: 'date', format: 'iso' }, '2015-06-30')).toBe('2015-06-30');
    expect(run({ op: 'date', format: 'YYYY-MM-DD' }, 'soon')).toBe('');
  });

  it('map: inline values and tables, exact or loose, unmapped blank unless kept', () => {
    const tables = new Map([['t', { 'Information Technology and Services': 'IT' }]]);
    expect(run({ op: 'map', table: 't' }, 'Information Technology and Services', {}, tables)).toBe('IT');
    expect(run({ op: 'map', table: 't' }, 'Information Technology & Services', {}, tables)).toBe('');
    expect(
      run({ op: 'map', table: 't', match: 'loose' }, 'information technology & services', {}, tables),
    ).toBe('IT');
    expect(run({ op: 'map', values: { a: 'A' } }, 'b')).toBe('');
    expect(run({ op: 'map', values: { a: 'A' }, otherwise: 'keep' }, 'b')).toBe('b');
    expect(run({ op: 'map', values: { a: 'A' } }, 'constructor')).toBe(''); // no prototype lookups
    expect(
      run(
        { op: 'map', table: 't', values: { 'Information Technology and Services': 'X' } },
        'Information Technology and Services',
        {},
        tables,
      ),
    ).toBe('X');
  });

  it('default, split, blankIf, truncate, case', () => {
    expect(run({ op: 'default', value: '[not provided]' }, null)).toBe('[not provided]');
    expect(run({ op: 'default', value: '[not provided]' }, 'Vogel')).toBe('Vogel');
    // A row keyed by a record id: its empty cell means "unchanged", never a placeholder over the real name.
    const keyed = { op: 'default', value: '[not provided]', unless: 'task.custom_fields.sf_id' };
    expect(run(keyed, null, { 'task.custom_fields.sf_id': '003Hs0000000001IAA' })).toBe('');
    expect(run(keyed, null, {})).toBe('[not provided]');
    expect(run({ op: 'split', separator: ',', index: 0, minParts: 3 }, 'Munich, Bavaria, Germany')).toBe(
      'Munich',
    );
    expect(run({ op: 'split', separator: ',', index: 1, minParts: 3 }, 'Munich, Bavaria, Germany')).toBe(
      'Bavaria',
    );
    expect(run({ op: 'split', separator: ',', index: 0, minParts: 3 }, 'Berlin, Germany')).toBe('');
    expect(run({ op: 'split', separator: ',', index: -1 }, 'Berlin, Germany')).toBe('Germany');
    expect(
      run({ op: 'blankIf', field: 'job_change_status', in: ['left'] }, 'Acme', { job_change_status: 'left' }),
    ).toBe('');
    expect(
      run({ op: 'blankIf', field: 'job_change_status', in: ['left'] }, 'Acme', {
        job_change_status: 'moved',
      }),
    ).toBe('Acme');
    expect(run({ op: 'truncate', length: 3 }, 'abcdef')).toBe('abc');
    expect(run({ op: 'truncate', length: 2 }, 'a😀')).toBe('a'); // never half a surrogate pair
    expect(run({ op: 'case', to: 'upper' }, 'ab')).toBe('AB');
  });

  it('looseKey ignores case, punctuation and "and"/"&"', () => {
    expect(looseKey('Airlines/Aviation')).toBe(looseKey('Airlines & Aviation'));
    expect(looseKey('Health, Wellness and Fitness')).toBe('health wellness fitness');
  });
});

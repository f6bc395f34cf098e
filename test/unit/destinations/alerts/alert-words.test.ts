import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlertChange } from '../../../../src/destinations/alerts/alert-change.js';
import { countLine, groupChanges } from '../../../../src/destinations/alerts/alert-words.js';

const change = (id: number, watch: string, kind: string): AlertChange => ({
  id: String(id),
  watch,
  kind,
  name: `Person ${id}`,
  company: 'Other',
  previousCompany: 'Acme',
  title: 'CRO',
  linkedin: undefined,
  fields: {},
});

const changes = [
  change(1, 'champions', 'left'),
  change(2, 'champions', 'moved'),
  change(3, 'buyers', 'successor'),
  change(4, 'champions', 'moved'),
  change(5, 'buyers', 'new_person'),
];

describe("a digest's words", () => {
  it('counts the kinds in their fixed order (moved, left, returned, title, new person, then any other)', () => {
    expect(countLine(changes)).toMatch(/^5 changes: 2 moved, 1 left, 1 new \w+, 1 /);
  });

  it('reads the same whatever order its changes were handed on in (events are claimed in no promised order)', () => {
    const shape = (list: readonly AlertChange[]) =>
      [...groupChanges(list)].map(([watch, byKind]) => [watch, [...byKind.keys()]]);
    fc.assert(
      fc.property(fc.shuffledSubarray(changes, { minLength: changes.length }), (shuffled) => {
        expect(countLine(shuffled)).toBe(countLine(changes));
        expect(shape(shuffled)).toEqual([
          ['buyers', ['new_person', 'successor']],
          ['champions', ['moved', 'left']],
        ]);
      }),
    );
  });
});

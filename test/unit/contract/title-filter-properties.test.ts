import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileTitleFilter,
  matchesTitleFilter,
  parseTitleFilter,
  printTitleFilter,
  splitTitleWords,
  type TitleFilterNode,
  type TitleFilterTerm,
} from '../../../src/contract/title-filter.js';
import { ValidationError } from '../../../src/errors.js';

const SEED = 20_250_611;
const RUNS = { seed: SEED, numRuns: 600 };

/** Filter-ish text: mostly the language's own pieces, glued or spaced, plus arbitrary characters. */
const PIECES = [
  'AND',
  'OR',
  'NOT',
  '(',
  ')',
  'and',
  'not',
  'CEO',
  'Head',
  'of',
  'Sales',
  'R&D',
  ' ',
  '  ',
  '\t',
];
const filterText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((parts) => parts.join('')),
  fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((parts) => parts.join(' ')),
  fc
    .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 3 })), { maxLength: 20 })
    .map((p) => p.join(' ')),
);

/** A word the printer can write: no whitespace, no parenthesis, not spelled as an operator. */
const word = fc.oneof(
  fc.constantFrom('CEO', 'Head', 'of', 'Sales', 'and', 'or', 'not', 'ANDX', 'R&D', '"VP"', 'Général', '&'),
  fc
    .string({ minLength: 1, maxLength: 8 })
    .filter((w) => !/[\s()]/.test(w) && w !== 'AND' && w !== 'OR' && w !== 'NOT'),
);
const term = fc
  .array(word, { minLength: 1, maxLength: 4 })
  .map((words): TitleFilterTerm => ({ type: 'term', words }));

/** Trees of the shapes the parser produces: NOT only as the right operand of AND/OR, never doubled. */
const { node } = fc.letrec<{ node: TitleFilterNode; binary: TitleFilterNode; right: TitleFilterNode }>(
  (tie) => ({
    node: fc.oneof({ maxDepth: 6, depthIdentifier: 'tree' }, term, tie('binary')),
    binary: fc.record({
      type: fc.constantFrom('and' as const, 'or' as const),
      left: tie('node'),
      right: tie('right'),
    }),
    right: fc.oneof(
      tie('node'),
      tie('node').map((operand): TitleFilterNode => ({ type: 'not', operand })),
    ),
  }),
);

/** An independent reading of the matching rule: terms as space-joined word strings, recursion everywhere. */
function referenceMatch(n: TitleFilterNode, title: string): boolean {
  switch (n.type) {
    case 'term': {
      const needle = splitTitleWords(n.words.join(' ')).join(' ');
      return needle !== '' && ` ${splitTitleWords(title).join(' ')} `.includes(` ${needle} `);
    }
    case 'not':
      return !referenceMatch(n.operand, title);
    case 'and':
      return referenceMatch(n.left, title) && referenceMatch(n.right, title);
    case 'or':
      return referenceMatch(n.left, title) || referenceMatch(n.right, title);
  }
}

const title = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.array(word, { maxLength: 8 }).map((w) => w.join(' ')),
);

describe('title filter properties', () => {
  it('parsing any text returns a tree or throws a VALIDATION_BAD_TITLE_FILTER* ValidationError', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(filterText, (text) => {
        let parsed: TitleFilterNode;
        try {
          parsed = parseTitleFilter(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).code).toMatch(/^VALIDATION_BAD_TITLE_FILTER/);
          refused += 1;
          return;
        }
        accepted += 1;
        // What parses prints to canonical text that parses to the same tree.
        expect(parseTitleFilter(printTitleFilter(parsed))).toEqual(parsed);
      }),
      { seed: SEED, numRuns: 3000 },
    );
    // The generators must exercise both outcomes, or the property proves little.
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  it('parse(print(tree)) deep-equals the tree', () => {
    fc.assert(
      fc.property(node, (tree) => {
        expect(parseTitleFilter(printTitleFilter(tree))).toEqual(tree);
      }),
      RUNS,
    );
  });

  it('the matcher never throws and agrees with a reference reading of the rule', () => {
    fc.assert(
      fc.property(node, fc.array(title, { minLength: 1, maxLength: 5 }), (tree, titles) => {
        const compiled = compileTitleFilter(tree);
        for (const t of titles) {
          const expected = referenceMatch(tree, t);
          expect(compiled(t)).toBe(expected);
          expect(matchesTitleFilter(tree, t)).toBe(expected);
        }
      }),
      RUNS,
    );
  });

  it('a term matches every title that contains it between other words', () => {
    fc.assert(
      fc.property(term, fc.array(word), fc.array(word), (t, before, after) => {
        fc.pre(splitTitleWords(t.words.join(' ')).length > 0);
        expect(matchesTitleFilter(t, [...before, ...t.words, ...after].join(' '))).toBe(true);
      }),
      RUNS,
    );
  });
});

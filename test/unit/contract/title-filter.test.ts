import { describe, expect, it } from 'vitest';
import {
  parseTitleFilter,
  printTitleFilter,
  TITLE_FILTER_MAX_NESTING,
  type TitleFilterNode,
} from '../../../src/contract/title-filter.js';
import { type TitleFilterCode, ValidationError } from '../../../src/errors.js';

const t = (...words: string[]): TitleFilterNode => ({ type: 'term', words });
const and = (left: TitleFilterNode, right: TitleFilterNode): TitleFilterNode => ({
  type: 'and',
  left,
  right,
});
const or = (left: TitleFilterNode, right: TitleFilterNode): TitleFilterNode => ({ type: 'or', left, right });
const not = (operand: TitleFilterNode): TitleFilterNode => ({ type: 'not', operand });

/** Parses `text` expecting a ValidationError; returns its code and the offset its message names. */
function failure(text: string): { code: string; offset: number } {
  try {
    parseTitleFilter(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const e = error as ValidationError;
    expect(e.issues).toEqual([e.message]);
    const offset = /at offset (\d+)/.exec(e.message)?.[1];
    expect(offset).toBeDefined();
    return { code: e.code, offset: Number(offset) };
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

describe('parseTitleFilter: valid filters', () => {
  const cases: [string, TitleFilterNode][] = [
    ['CEO', t('CEO')],
    ['  CEO  ', t('CEO')],
    ['Head of Sales', t('Head', 'of', 'Sales')],
    ['Head of Sales AND NOT Intern', and(t('Head', 'of', 'Sales'), not(t('Intern')))],
    // Written order, no precedence: A OR B AND C = (A OR B) AND C, and the other way round.
    ['A OR B AND C', and(or(t('A'), t('B')), t('C'))],
    ['A AND B OR C', or(and(t('A'), t('B')), t('C'))],
    ['A OR (B AND C)', or(t('A'), and(t('B'), t('C')))],
    ['(A OR B) AND NOT C OR D', or(and(or(t('A'), t('B')), not(t('C'))), t('D'))],
    ['A AND NOT (B OR C)', and(t('A'), not(or(t('B'), t('C'))))],
    ['CEO OR NOT (CTO)', or(t('CEO'), not(t('CTO')))],
    ['(CEO)', t('CEO')],
    ['((( CEO )))', t('CEO')],
    ['(CEO) AND (CTO)', and(t('CEO'), t('CTO'))],
    ['(Head of Sales) OR VP Sales', or(t('Head', 'of', 'Sales'), t('VP', 'Sales'))],
    // Lowercase operators and words that merely contain an operator are title words.
    ['sales and marketing', t('sales', 'and', 'marketing')],
    ['Director or not Or Not', t('Director', 'or', 'not', 'Or', 'Not')],
    ['CEO ANDCTO NOTARY ORACLE', t('CEO', 'ANDCTO', 'NOTARY', 'ORACLE')],
    ['R&D AND-Lead "VP"', t('R&D', 'AND-Lead', '"VP"')],
    ['CEO\tAND\nCTO', and(t('CEO'), t('CTO'))],
    ['Directeur général OR 販売部長', or(t('Directeur', 'général'), t('販売部長'))],
    [`${'('.repeat(TITLE_FILTER_MAX_NESTING)}A${')'.repeat(TITLE_FILTER_MAX_NESTING)}`, t('A')],
  ];
  it.each(cases)('%j', (text, ast) => {
    expect(parseTitleFilter(text)).toEqual(ast);
  });

  it('parses a long chain without exhausting the stack, nesting to the left', () => {
    const node = parseTitleFilter(`A${' OR A AND NOT B'.repeat(20_000)}`);
    expect(node.type).toBe('and');
    expect(printTitleFilter(node)).toBe(`A${' OR A AND NOT B'.repeat(20_000)}`);
  });

  it('throws TypeError for a non-string', () => {
    expect(() => parseTitleFilter(42 as unknown as string)).toThrow(TypeError);
  });
});

describe('parseTitleFilter: invalid filters get the most specific code', () => {
  const P = 'VALIDATION_BAD_TITLE_FILTER';
  const cases: [string, TitleFilterCode, number][] = [
    // empty filter / missing string
    ['', `${P}_MISSING_STRING`, 0],
    ['   ', `${P}_MISSING_STRING`, 3],
    ['\t\n', `${P}_MISSING_STRING`, 2],
    ['()', `${P}_MISSING_STRING`, 1],
    ['( )', `${P}_MISSING_STRING`, 2],
    ['(', `${P}_MISSING_STRING`, 1],
    ['CEO AND (', `${P}_MISSING_STRING`, 9],
    ['CEO AND ( )', `${P}_MISSING_STRING`, 10],
    // leading operator: the left operand is missing
    ['AND CEO', `${P}_MISSING_STRING`, 0],
    ['OR CEO', `${P}_MISSING_STRING`, 0],
    ['( OR CEO)', `${P}_MISSING_STRING`, 2],
    ['CEO AND ( AND CTO)', `${P}_MISSING_STRING`, 10],
    // NOT with nothing after it
    ['CEO AND NOT', `${P}_MISSING_STRING`, 11],
    ['(A OR NOT )', `${P}_MISSING_STRING`, 10],
    ['CEO AND NOT OR CTO', `${P}_MISSING_STRING`, 12],
    // trailing operator, two operators in a row
    ['CEO AND', `${P}_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS`, 7],
    ['CEO OR ', `${P}_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS`, 7],
    ['(CEO OR )', `${P}_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS`, 8],
    ['CEO AND OR CTO', `${P}_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS`, 8],
    ['CEO OR AND CTO', `${P}_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS`, 7],
    ['CEO AND AND CTO', `${P}_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS`, 8],
    // operand without an operator
    ['(CEO) CTO', `${P}_EXTRA_STRING`, 6],
    ['CEO (CTO)', `${P}_EXTRA_STRING`, 4],
    ['(CEO)(CTO)', `${P}_EXTRA_STRING`, 5],
    ['CEO(CTO)', `${P}_EXTRA_STRING`, 3],
    ['Sales (EMEA)', `${P}_EXTRA_STRING`, 6],
    ['(A AND B) C', `${P}_EXTRA_STRING`, 10],
    // unbalanced: too many ')'
    ['CEO)', `${P}_EXTRA_RIGHT_PARENTHESIS`, 3],
    [') CEO', `${P}_EXTRA_RIGHT_PARENTHESIS`, 0],
    [')', `${P}_EXTRA_RIGHT_PARENTHESIS`, 0],
    ['CEO AND )', `${P}_EXTRA_RIGHT_PARENTHESIS`, 8],
    ['(CEO))', `${P}_EXTRA_RIGHT_PARENTHESIS`, 5],
    ['(A) OR B)', `${P}_EXTRA_RIGHT_PARENTHESIS`, 8],
    // unbalanced: too many '('
    ['((CEO)', `${P}_EXTRA_LEFT_PARENTHESIS`, 0],
    ['( (CEO) AND CTO', `${P}_EXTRA_LEFT_PARENTHESIS`, 0],
    ['A AND ((B)', `${P}_EXTRA_LEFT_PARENTHESIS`, 6],
    ['(CEO', `${P}_MISSING_RIGHT_PARENTHESIS`, 4],
    ['(A) AND (B', `${P}_MISSING_RIGHT_PARENTHESIS`, 10],
    ['(A AND (B)', `${P}_MISSING_RIGHT_PARENTHESIS`, 10],
    // NOT without a preceding AND or OR
    ['NOT CEO', P, 0],
    ['CEO NOT CTO', P, 4],
    ['(CEO) NOT CTO', P, 6],
    ['( NOT CEO)', P, 2],
    ['CEO AND NOT NOT CTO', P, 12],
    // operators without spaces
    ['CEO AND(CTO)', P, 4],
    ['(CEO)AND CTO', P, 5],
    ['CEO AND NOT(CTO)', P, 8],
    ['(CEO OR)', P, 5],
    ['(NOT CEO)', P, 1],
    // nesting guard
    [`${'('.repeat(TITLE_FILTER_MAX_NESTING + 1)}A${')'.repeat(TITLE_FILTER_MAX_NESTING + 1)}`, P, 100],
  ];
  it.each(cases)('%j → %s at offset %i', (text, code, offset) => {
    expect(failure(text)).toEqual({ code, offset });
  });

  it('reports the first problem reading left to right', () => {
    expect(failure('NOT CEO)').code).toBe('VALIDATION_BAD_TITLE_FILTER');
    expect(failure('CEO) AND NOT').code).toBe('VALIDATION_BAD_TITLE_FILTER_EXTRA_RIGHT_PARENTHESIS');
    expect(failure('(CEO AND').code).toBe(
      'VALIDATION_BAD_TITLE_FILTER_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS',
    );
  });
});

describe('printTitleFilter', () => {
  const cases: [TitleFilterNode, string][] = [
    [t('Head', 'of', 'Sales'), 'Head of Sales'],
    [and(or(t('A'), t('B')), t('C')), 'A OR B AND C'],
    [or(t('A'), and(t('B'), t('C'))), 'A OR (B AND C)'],
    [and(t('A'), not(or(t('B'), t('C')))), 'A AND NOT (B OR C)'],
    [or(t('x'), not(t('and', 'or'))), 'x OR NOT and or'],
    [and(t('A'), or(t('B'), and(t('C'), not(t('D'))))), 'A AND (B OR (C AND NOT D))'],
  ];
  it.each(cases)('prints %j as %j, which parses back', (node, text) => {
    expect(printTitleFilter(node)).toBe(text);
    expect(parseTitleFilter(text)).toEqual(node);
  });

  it('gives canonical text', () => {
    expect(printTitleFilter(parseTitleFilter('  (( CEO ))\tAND   (CTO OR  (VP))  '))).toBe(
      'CEO AND (CTO OR VP)',
    );
  });

  const unprintable: [string, unknown][] = [
    ['NOT at the root', not(t('A'))],
    ['NOT as a left operand', and(not(t('A')), t('B'))],
    ['NOT under NOT', or(t('A'), not(not(t('B'))))],
    ['an empty term', t()],
    ['a word with a space', t('a b')],
    ['a word with a tab', t('a\tb')],
    ['a word with a parenthesis', t('(a')],
    ['an operator word', and(t('A'), t('x', 'OR'))],
    ['an empty word', t('')],
    ['an unknown node', { type: 'xor', left: t('A'), right: t('B') }],
    [
      'nesting beyond the maximum',
      // The root AND needs no parentheses; each right-nested AND below it needs one level.
      Array.from({ length: TITLE_FILTER_MAX_NESTING + 2 }).reduce<TitleFilterNode>(
        (n) => and(t('A'), n),
        t('B'),
      ),
    ],
  ];
  it.each(unprintable)('throws TypeError for %s', (_name, node) => {
    expect(() => printTitleFilter(node as TitleFilterNode)).toThrow(TypeError);
  });

  it('prints the deepest nesting the parser accepts', () => {
    const node = Array.from({ length: TITLE_FILTER_MAX_NESTING + 1 }).reduce<TitleFilterNode>(
      (n) => and(t('A'), n),
      t('B'),
    );
    const text = printTitleFilter(node);
    expect(text.split('(').length - 1).toBe(TITLE_FILTER_MAX_NESTING);
    expect(parseTitleFilter(text)).toEqual(node);
  });
});

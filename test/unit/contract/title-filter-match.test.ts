import { describe, expect, it } from 'vitest';
import {
  compileTitleFilter,
  matchesTitleFilter,
  parseTitleFilter,
  splitTitleWords,
} from '../../../src/contract/title-filter.js';
import { ValidationError } from '../../../src/errors.js';

describe('splitTitleWords', () => {
  it.each([
    ['VP, Sales & Marketing', ['vp', 'sales', 'marketing']],
    ['  Co-Founder/CEO  ', ['co', 'founder', 'ceo']],
    ['Head of R&D (EMEA)', ['head', 'of', 'r', 'd', 'emea']],
    ['Directeur Général', ['directeur', 'général']],
    ['cafe\u0301', ['café']],
    ['C++ / .NET', ['c', 'net']],
    ['', []],
    ['— & —', []],
  ])('%j → %j', (title, words) => {
    expect(splitTitleWords(title)).toEqual(words);
  });
});

describe('matching titles', () => {
  const cases: [filter: string, title: string, expected: boolean][] = [
    ['Sales', 'VP, Sales & Marketing', true],
    ['Sales', 'Salesforce Administrator', false],
    ['sales', 'SALES DIRECTOR', true],
    ['Head of Sales', 'Global Head of Sales EMEA', true],
    ['Head of Sales', 'Head of Global Sales', false],
    ['Head of Sales', 'Sales Head of', false],
    ['Head of Sales', 'head-of-sales', true],
    ['CEO', 'Co-Founder & CEO', true],
    ['Co-Founder', 'Co Founder', true],
    ['Co-Founder', 'Cofounder', false],
    ['R&D', 'Head of R&D', true],
    ['"VP"', 'VP Engineering', true],
    ['Café', 'Gérant de cafe\u0301', true],
    ['Head of Sales AND NOT Intern', 'Head of Sales', true],
    ['Head of Sales AND NOT Intern', 'Head of Sales Intern', false],
    ['CEO OR CTO', 'CTO', true],
    ['CEO OR CTO', 'CFO', false],
    ['CEO AND CTO', 'CEO', false],
    ['CEO AND CTO', 'CEO & CTO', true],
    // Written order: (CEO OR CTO) AND Europe, not CEO OR (CTO AND Europe).
    ['CEO OR CTO AND Europe', 'CEO', false],
    ['CEO OR CTO AND Europe', 'CTO Europe', true],
    ['CEO OR (CTO AND Europe)', 'CEO', true],
    ['CEO AND NOT (Assistant OR Intern)', 'Assistant to the CEO', false],
    ['CEO AND NOT (Assistant OR Intern)', 'CEO', true],
    ['Sales OR NOT Marketing', 'Marketing', false],
    ['Sales OR NOT Marketing', 'Engineer', true],
    // Lowercase "and" is a word of the title, not an operator.
    ['sales and marketing', 'Sales & Marketing', false],
    ['sales and marketing', 'Sales and Marketing', true],
    // A term with no letter or digit has nothing to find.
    ['&', 'Sales & Marketing', false],
    ['Engineer OR NOT &', 'Sales', true],
    ['CEO', '', false],
    ['CEO OR NOT CTO', '', true],
  ];
  it.each(cases)('%j on %j → %s', (filter, title, expected) => {
    expect(compileTitleFilter(filter)(title)).toBe(expected);
    expect(matchesTitleFilter(parseTitleFilter(filter), title)).toBe(expected);
  });

  it('compiles a parsed node as well as text', () => {
    const matches = compileTitleFilter(parseTitleFilter('Head of Sales AND NOT Intern'));
    expect(['Head of Sales', 'Head of Sales Intern', 'Intern'].map(matches)).toEqual([true, false, false]);
  });

  it('refuses a bad filter with ValidationError', () => {
    expect(() => compileTitleFilter('CEO AND')).toThrow(ValidationError);
  });

  it('throws TypeError for a title that is not a string', () => {
    expect(() => compileTitleFilter('CEO')(null as unknown as string)).toThrow(TypeError);
  });

  it('matches a long chain without exhausting the stack', () => {
    const matches = compileTitleFilter(`X${' OR X AND NOT Y'.repeat(20_000)}`);
    expect(matches('X')).toBe(true);
    expect(matches('X Y')).toBe(false);
  });
});

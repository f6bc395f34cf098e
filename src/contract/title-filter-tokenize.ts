/**
 * The tokens of a title filter (interface, "Title filter expression syntax"): words, the uppercase
 * operators AND / OR / NOT, and parentheses. Pure; the parser in title-filter.ts gives them meaning.
 */

/** The operator words; only these exact uppercase spellings are operators, `and` is a title word. */
export const TITLE_FILTER_OPERATORS = ['AND', 'OR', 'NOT'] as const;
export type TitleFilterOperator = (typeof TITLE_FILTER_OPERATORS)[number];

/** One token; `offset` is its first UTF-16 code unit in the filter text (the end token: the text's length). */
export type TitleFilterToken =
  | { readonly kind: 'word'; readonly text: string; readonly offset: number }
  | {
      readonly kind: TitleFilterOperator;
      readonly offset: number;
      /** True when a parenthesis touches the operator ("AND(", ")OR"): an operator without spaces. */
      readonly glued: boolean;
    }
  | { readonly kind: '(' | ')' | 'end'; readonly offset: number };

const WHITESPACE = /\s/;

/** True for a character that separates words: any whitespace (the interface says spaces; tabs are spaces too). */
export function isTitleFilterSpace(char: string): boolean {
  return WHITESPACE.test(char);
}

/** True for the characters that end a word without being part of it: whitespace and parentheses. */
function isDelimiter(char: string): boolean {
  return char === '(' || char === ')' || isTitleFilterSpace(char);
}

/** True when `word` is spelled exactly like an operator. */
export function isTitleFilterOperator(word: string): word is TitleFilterOperator {
  return word === 'AND' || word === 'OR' || word === 'NOT';
}

/**
 * Splits a filter into tokens, always ending with an `end` token. Parentheses are tokens of their own even
 * when they touch a word ("(CEO)"); a word is a maximal run of other non-space characters.
 */
export function tokenizeTitleFilter(text: string): TitleFilterToken[] {
  const tokens: TitleFilterToken[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '(' || char === ')') {
      tokens.push({ kind: char, offset: i });
      i += 1;
      continue;
    }
    if (isTitleFilterSpace(char)) {
      i += 1;
      continue;
    }
    const start = i;
    while (i < text.length && !isDelimiter(text[i]!)) i += 1;
    const word = text.slice(start, i);
    if (isTitleFilterOperator(word)) {
      const before = text[start - 1];
      const after = text[i];
      const glued = before === '(' || before === ')' || after === '(' || after === ')';
      tokens.push({ kind: word, offset: start, glued });
    } else {
      tokens.push({ kind: 'word', text: word, offset: start });
    }
  }
  tokens.push({ kind: 'end', offset: text.length });
  return tokens;
}

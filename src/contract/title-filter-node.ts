/**
 * The syntax tree of a title filter (interface, "Title filter expression syntax"), shared by the parser,
 * the printer and the matcher.
 */

/** A title: one or more words as written (case kept), matched as a contiguous word sequence. */
export interface TitleFilterTerm {
  readonly type: 'term';
  readonly words: readonly string[];
}
/** `left AND right` / `left OR right`; chains nest to the left since evaluation runs in written order. */
export interface TitleFilterBinary {
  readonly type: 'and' | 'or';
  readonly left: TitleFilterNode;
  readonly right: TitleFilterNode;
}
/** `NOT operand`; the parser only produces it as the right operand of AND or OR. */
export interface TitleFilterNot {
  readonly type: 'not';
  readonly operand: TitleFilterNode;
}
/** The syntax tree of a title filter. Parentheses leave no node: they only shape the tree. */
export type TitleFilterNode = TitleFilterTerm | TitleFilterBinary | TitleFilterNot;

/**
 * hooksync's guard, not an interface limit: parentheses nested deeper than this are refused
 * (VALIDATION_BAD_TITLE_FILTER), so that printing and matching never exhaust the call stack.
 */
export const TITLE_FILTER_MAX_NESTING = 100;

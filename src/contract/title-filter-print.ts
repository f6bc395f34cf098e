/**
 * The canonical text of a title filter: the inverse of parseTitleFilter on every tree the parser can produce.
 */
import { TITLE_FILTER_MAX_NESTING, type TitleFilterNode, type TitleFilterTerm } from './title-filter-node.js';
import { isTitleFilterOperator, isTitleFilterSpace } from './title-filter-tokenize.js';

/**
 * Prints a filter with single spaces and parentheses only where the tree needs them: around a right operand
 * that is itself AND/OR, and around the operand of NOT unless it is a term. Left chains print flat, since
 * the interface evaluates in written order (`and(or(A, B), C)` prints `A OR B AND C`).
 * Throws TypeError for a tree no filter text can express (NOT first or doubled, a word holding a space,
 * a parenthesis or an operator spelling, an empty term, nesting beyond TITLE_FILTER_MAX_NESTING).
 */
export function printTitleFilter(node: TitleFilterNode): string {
  return printChain(node, 0);
}

/** A left-nested chain `x OP y OP z`, whose first operand must be a term. */
function printChain(node: TitleFilterNode, depth: number): string {
  if (depth > TITLE_FILTER_MAX_NESTING) {
    throw new TypeError(
      `printTitleFilter: nesting deeper than ${TITLE_FILTER_MAX_NESTING} would not parse back`,
    );
  }
  const rights: string[] = [];
  let first: TitleFilterNode = node;
  // Walk the left spine without recursion: a long chain of operators is a deep tree but needs no parentheses.
  while (first.type === 'and' || first.type === 'or') {
    rights.push(`${first.type === 'and' ? 'AND' : 'OR'} ${printRight(first.right, depth)}`);
    first = first.left;
  }
  if (first.type !== 'term') {
    throw new TypeError(`printTitleFilter: ${describe(first)} can only be the right operand of AND or OR`);
  }
  rights.push(printTerm(first));
  return rights.reverse().join(' ');
}

function printRight(node: TitleFilterNode, depth: number): string {
  switch (node.type) {
    case 'term':
      return printTerm(node);
    case 'not':
      if (node.operand.type === 'term') return `NOT ${printTerm(node.operand)}`;
      if (node.operand.type === 'not') throw new TypeError('printTitleFilter: NOT directly under NOT');
      return `NOT (${printChain(node.operand, depth + 1)})`;
    case 'and':
    case 'or':
      return `(${printChain(node, depth + 1)})`;
    default:
      throw new TypeError(`printTitleFilter: ${describe(node)} is not a title filter node`);
  }
}

function printTerm(term: TitleFilterTerm): string {
  const words: unknown = term.words;
  if (!Array.isArray(words) || words.length === 0) {
    throw new TypeError('printTitleFilter: a term needs at least one word');
  }
  for (const word of words) {
    if (
      typeof word !== 'string' ||
      word === '' ||
      isTitleFilterOperator(word) ||
      [...word].some(isReserved)
    ) {
      throw new TypeError(`printTitleFilter: ${JSON.stringify(word)} cannot be a word of a term`);
    }
  }
  return words.join(' ');
}

function isReserved(char: string): boolean {
  return char === '(' || char === ')' || isTitleFilterSpace(char);
}

function describe(node: unknown): string {
  const type = typeof node === 'object' && node !== null ? (node as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? `a "${type}" node` : 'a value';
}

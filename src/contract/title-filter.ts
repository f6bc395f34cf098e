/**
 * Title filters of Search Contact (interface, "Title filter expression syntax"): the parser with the service's
 * VALIDATION_BAD_TITLE_FILTER* codes. Also re-exports the tree types, the printer and the matcher from the
 * title-filter-*.ts files beside it, so that callers import this one module.
 */

import { type TitleFilterCode, ValidationError } from '../errors.js';
import { compileTitleFilterNode } from './title-filter-match.js';
import { TITLE_FILTER_MAX_NESTING, type TitleFilterNode } from './title-filter-node.js';
import { type TitleFilterToken, tokenizeTitleFilter } from './title-filter-tokenize.js';

export { compileTitleFilterNode, matchesTitleFilter, splitTitleWords } from './title-filter-match.js';
export {
  TITLE_FILTER_MAX_NESTING,
  type TitleFilterBinary,
  type TitleFilterNode,
  type TitleFilterNot,
  type TitleFilterTerm,
} from './title-filter-node.js';
export { printTitleFilter } from './title-filter-print.js';

/** Where an operand is expected: at the start, after '(', after AND/OR, or after AND NOT / OR NOT. */
type OperandContext = 'start' | 'lparen' | 'operator' | 'not';

/** One level of parentheses (the root level has `openOffset` -1). */
interface Frame {
  left: TitleFilterNode | undefined;
  op: 'and' | 'or' | undefined;
  not: boolean;
  readonly openOffset: number;
  /** This '(' was directly followed by another '(': if it stays open, the likely typo is a doubled '('. */
  doubled: boolean;
}

/**
 * Parses a title filter. Without parentheses, operators apply in written order with no precedence
 * (`A OR B AND C` is `(A OR B) AND C`); consecutive words form one term ("Head of Sales").
 *
 * Throws {@link ValidationError} for the first problem met reading left to right, naming its offset. Codes
 * (all start VALIDATION_BAD_TITLE_FILTER; "plain" is that code alone):
 *
 * | Form                                                                  | Code suffix                    |
 * |-----------------------------------------------------------------------|--------------------------------|
 * | empty or whitespace only; "()"; "("; "CEO AND ("                      | _MISSING_STRING                |
 * | operator first, left operand missing: "AND CEO", "( OR CEO)"          | _MISSING_STRING                |
 * | nothing after AND NOT / OR NOT: "CEO AND NOT", "(A OR NOT )" (1)      | _MISSING_STRING                |
 * | nothing after AND / OR: "CEO AND", "(CEO OR )"                        | _MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS |
 * | two operators in a row: "CEO AND OR CTO"                              | _MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS |
 * | operand without operator: "(CEO) CTO", "CEO (CTO)", "(A)(B)", "CEO(CTO)" | _EXTRA_STRING               |
 * | ')' closing nothing, wherever it is: "CEO)", ") CEO", "CEO AND )"     | _EXTRA_RIGHT_PARENTHESIS       |
 * | '(' left open at the end that directly opened another '(': "((CEO)" (2) | _EXTRA_LEFT_PARENTHESIS      |
 * | any other '(' left open at the end: "(CEO", "(A) AND (B"              | _MISSING_RIGHT_PARENTHESIS     |
 * | NOT not right after AND/OR: "NOT CEO", "CEO NOT CTO", "( NOT A)", "A AND NOT NOT B" | plain            |
 * | operator without spaces, touching a parenthesis: "CEO AND(CTO)", "(CEO)AND CTO", "(CEO OR)" | plain    |
 * | parentheses nested deeper than {@link TITLE_FILTER_MAX_NESTING}        | plain                          |
 *
 * (1) After NOT only a title or '(' may follow, so the code that also offers NOT would mislead.
 * (2) A doubled '(' of which only one is closed is the likely typo; "(CEO" is a ')' forgotten.
 *
 * Only a whole word AND, OR or NOT is an operator: "ANDCTO", "AND-CTO", "and" are title words. Parentheses
 * always group, even inside a title ("Sales (EMEA)" is an extra string). A non-string throws TypeError.
 */
export function parseTitleFilter(text: string): TitleFilterNode {
  if (typeof text !== 'string') throw new TypeError('parseTitleFilter: the filter must be a string');
  const fail = (code: TitleFilterCode, offset: number, what: string): never => {
    const message = `Bad title filter at offset ${offset}: ${what}`;
    throw new ValidationError(code, message, [message]);
  };
  const root: Frame = { left: undefined, op: undefined, not: false, openOffset: -1, doubled: false };
  const stack: Frame[] = [root];
  let top = root;
  let ctx: OperandContext = 'start';
  /** 'operand': an operand is expected; 'term': words are being collected; 'group': a ')' was just read. */
  let mode: 'operand' | 'term' | 'group' = 'operand';
  let words: string[] = [];

  const attach = (operand: TitleFilterNode): void => {
    const value: TitleFilterNode = top.not ? { type: 'not', operand } : operand;
    top.left =
      top.left === undefined || top.op === undefined ? value : { type: top.op, left: top.left, right: value };
    top.op = undefined;
    top.not = false;
  };
  const finishTerm = (): void => {
    if (mode !== 'term') return;
    attach({ type: 'term', words });
    words = [];
  };
  // What is missing where an operand was expected but `token` came (a ')' with no open '(' is handled first).
  const missingOperand = (token: TitleFilterToken, found: string): never => {
    if (ctx === 'operator') {
      return fail(
        'VALIDATION_BAD_TITLE_FILTER_MISSING_STRING_OR_NOT_OR_LEFT_PARENTHESIS',
        token.offset,
        found,
      );
    }
    return fail('VALIDATION_BAD_TITLE_FILTER_MISSING_STRING', token.offset, found);
  };

  for (const token of tokenizeTitleFilter(text)) {
    switch (token.kind) {
      case 'word':
        if (mode === 'group') {
          fail(
            'VALIDATION_BAD_TITLE_FILTER_EXTRA_STRING',
            token.offset,
            `"${token.text}" follows ")" without AND or OR`,
          );
        }
        mode = 'term';
        words.push(token.text);
        break;
      case '(':
        if (mode !== 'operand') {
          fail(
            'VALIDATION_BAD_TITLE_FILTER_EXTRA_STRING',
            token.offset,
            '"(" follows an operand without AND or OR',
          );
        }
        if (stack.length > TITLE_FILTER_MAX_NESTING) {
          fail(
            'VALIDATION_BAD_TITLE_FILTER',
            token.offset,
            `parentheses nest deeper than ${TITLE_FILTER_MAX_NESTING}`,
          );
        }
        if (ctx === 'lparen') top.doubled = true;
        top = { left: undefined, op: undefined, not: false, openOffset: token.offset, doubled: false };
        stack.push(top);
        ctx = 'lparen';
        break;
      case ')': {
        if (stack.length === 1) {
          fail('VALIDATION_BAD_TITLE_FILTER_EXTRA_RIGHT_PARENTHESIS', token.offset, '")" closes no "("');
        }
        if (mode === 'operand') {
          missingOperand(token, ctx === 'lparen' ? 'empty parentheses' : `")" where a title was expected`);
        }
        finishTerm();
        const closed = stack.pop()!;
        top = stack[stack.length - 1]!;
        attach(closed.left!);
        mode = 'group';
        break;
      }
      case 'AND':
      case 'OR':
        if (token.glued)
          fail('VALIDATION_BAD_TITLE_FILTER', token.offset, `${token.kind} touches a parenthesis`);
        if (mode === 'operand') {
          const where =
            ctx === 'start' || ctx === 'lparen' ? 'with no title before it' : 'where a title was expected';
          missingOperand(token, `${token.kind} ${where}`);
        }
        finishTerm();
        top.op = token.kind === 'AND' ? 'and' : 'or';
        mode = 'operand';
        ctx = 'operator';
        break;
      case 'NOT':
        if (token.glued) fail('VALIDATION_BAD_TITLE_FILTER', token.offset, 'NOT touches a parenthesis');
        if (mode !== 'operand' || ctx !== 'operator') {
          fail('VALIDATION_BAD_TITLE_FILTER', token.offset, 'NOT must come right after AND or OR');
        }
        top.not = true;
        ctx = 'not';
        break;
      case 'end':
        if (mode === 'operand') {
          missingOperand(
            token,
            ctx === 'start' ? 'the filter is empty' : 'the filter ends where a title was expected',
          );
        }
        finishTerm();
        if (stack.length > 1) {
          const doubled = stack.find((frame) => frame.doubled);
          if (doubled !== undefined) {
            fail(
              'VALIDATION_BAD_TITLE_FILTER_EXTRA_LEFT_PARENTHESIS',
              doubled.openOffset,
              '"((" is never closed',
            );
          }
          fail(
            'VALIDATION_BAD_TITLE_FILTER_MISSING_RIGHT_PARENTHESIS',
            token.offset,
            `")" missing for "(" at offset ${top.openOffset}`,
          );
        }
        return root.left!;
    }
  }
  // tokenizeTitleFilter always ends with an 'end' token, which returns or throws above.
  throw new Error('unreachable: title filter tokens without an end token');
}

/**
 * A predicate testing job titles against a filter, prepared once: parses text (throwing ValidationError as
 * {@link parseTitleFilter}) or takes a parsed node. Use it when testing many titles.
 */
export function compileTitleFilter(filter: string | TitleFilterNode): (title: string) => boolean {
  return compileTitleFilterNode(typeof filter === 'string' ? parseTitleFilter(filter) : filter);
}

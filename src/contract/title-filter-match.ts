/**
 * Inclusive title matching (interface: "a title term matches longer titles containing the words"): a term
 * matches a job title that contains its words as a contiguous sequence, ignoring case and punctuation.
 */
import type { TitleFilterNode } from './title-filter-node.js';

/** Letters (with their combining marks) and digits; everything else separates words. */
const WORD_PATTERN = /[\p{L}\p{M}\p{N}]+/gu;

/** A predicate over a title already split by {@link splitTitleWords}. */
type WordsPredicate = (words: readonly string[]) => boolean;

/**
 * The comparable words of a title: NFC-normalized, lower-cased runs of letters and digits. Punctuation
 * splits words, so "VP, Sales & Marketing" gives [vp, sales, marketing] and "R&D" gives [r, d].
 * Filter terms go through the same function, so both sides always agree.
 */
export function splitTitleWords(title: string): string[] {
  return title.normalize('NFC').toLowerCase().match(WORD_PATTERN) ?? [];
}

/** True when `title` satisfies the filter. Prepares the filter on every call: prefer compileTitleFilterNode. */
export function matchesTitleFilter(node: TitleFilterNode, title: string): boolean {
  return compileTitleFilterNode(node)(title);
}

/**
 * A predicate testing titles against a parsed filter: each term's words are normalized once, and a title is
 * split once per call. A term without any letter or digit (e.g. "&") has nothing to find and matches no title.
 * A non-string title throws TypeError.
 */
export function compileTitleFilterNode(node: TitleFilterNode): (title: string) => boolean {
  const predicate = compileNode(node);
  return (title: string): boolean => {
    if (typeof title !== 'string') throw new TypeError('title filter: the title must be a string');
    return predicate(splitTitleWords(title));
  };
}

function compileNode(node: TitleFilterNode): WordsPredicate {
  switch (node.type) {
    case 'term':
      return compileTerm(splitTitleWords(node.words.join(' ')));
    case 'not': {
      const operand = compileNode(node.operand);
      return (words) => !operand(words);
    }
    case 'and':
    case 'or':
      return compileChain(node);
    default:
      throw new TypeError('title filter: not a title filter node');
  }
}

/**
 * A left-nested chain evaluated in written order with short-circuits, walking the spine iteratively so that
 * a long chain of operators costs no stack depth.
 */
function compileChain(node: TitleFilterNode): WordsPredicate {
  const steps: { and: boolean; test: WordsPredicate }[] = [];
  let first = node;
  while (first.type === 'and' || first.type === 'or') {
    steps.push({ and: first.type === 'and', test: compileNode(first.right) });
    first = first.left;
  }
  steps.reverse();
  const head = compileNode(first);
  return (words) => {
    let value = head(words);
    for (const step of steps) {
      if (step.and ? value : !value) value = step.test(words);
    }
    return value;
  };
}

function compileTerm(needle: readonly string[]): WordsPredicate {
  if (needle.length === 0) return () => false;
  if (needle.length === 1) {
    const only = needle[0]!;
    return (words) => words.includes(only);
  }
  return (words) => {
    const last = words.length - needle.length;
    for (let start = 0; start <= last; start += 1) {
      let k = 0;
      while (k < needle.length && words[start + k] === needle[k]) k += 1;
      if (k === needle.length) return true;
    }
    return false;
  };
}

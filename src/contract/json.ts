/**
 * JSON that keeps 64-bit integers exact (Company funding amounts and Usage counters are int64):
 * integers beyond Number.MAX_SAFE_INTEGER parse to bigint and stringify back to their digits.
 */
import { randomUUID } from 'node:crypto';
import { stringify as stringifyLossless } from 'lossless-json';

/**
 * True when JSON.parse gave a number beyond ±MAX_SAFE_INTEGER somewhere in `value`: every integer
 * token JSON.parse may have rounded lands there (a number in exponent form can too; the text scan
 * then finds no integer token and the first parse stands). Recursive because that is the fastest walk.
 */
function hasUnsafeNumber(value: unknown): boolean {
  if (typeof value === 'number') return value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (hasUnsafeNumber(item)) return true;
    return false;
  }
  for (const key in value) if (hasUnsafeNumber((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** The same walk with an explicit stack, for documents nested too deep for the recursive one. */
function hasUnsafeNumberDeep(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'number') {
      if (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER) return true;
    } else if (typeof value === 'object' && value !== null) {
      // One push per item: spreading a long array into push() overflows the stack by itself.
      for (const item of Array.isArray(value) ? value : Object.values(value)) stack.push(item);
    }
  }
  return false;
}

function mayHoldBigIntegers(value: unknown): boolean {
  try {
    return hasUnsafeNumber(value);
  } catch (error) {
    if (error instanceof RangeError) return hasUnsafeNumberDeep(value);
    throw error;
  }
}

/**
 * From its lastIndex, passes over everything that cannot be an integer token of 16 or more digits:
 * runs of other characters, whole strings (escapes included, so digits and `\"` inside them never
 * count) and digit runs of up to 15. It stops at the first longer digit run outside a string.
 * Repetitions are bounded because each holds a backtrack entry: unbounded, tens of MB overflow.
 */
const SKIP_TO_LONG_DIGIT_RUN = /(?:[^"\d]+|"[^"\\]*(?:\\[\s\S][^"\\]*)*"|\d{1,15}(?!\d)){0,1024}/y;

const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/** `.` `e` `E` `+` next to a digit run make it a fraction or an exponent, not an integer token. */
function isFractionOrExponentMark(code: number): boolean {
  return code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * Start and end offsets, pairwise, of every integer token beyond ±MAX_SAFE_INTEGER in `text`, which
 * JSON.parse has accepted: so a digit run outside strings is part of a number, has no leading zero,
 * and a `-` before it is its sign unless an `e` precedes that.
 */
function findBigIntegerTokens(text: string): number[] {
  const bounds: number[] = [];
  let pos = 0;
  while (pos < text.length) {
    SKIP_TO_LONG_DIGIT_RUN.lastIndex = pos;
    SKIP_TO_LONG_DIGIT_RUN.test(text);
    const start = SKIP_TO_LONG_DIGIT_RUN.lastIndex;
    let end = start;
    while (isDigit(text.charCodeAt(end))) end++;
    // Only an unterminated string stops the scan in place, and JSON.parse has refused those.
    if (end === pos) break;
    pos = end;
    const digits = end - start;
    if (digits < 16 || (digits === 16 && text.slice(start, end) <= MAX_SAFE_DIGITS)) continue;
    const signed = text.charCodeAt(start - 1) === 0x2d;
    const before = text.charCodeAt(signed ? start - 2 : start - 1);
    if (isFractionOrExponentMark(before) || isFractionOrExponentMark(text.charCodeAt(end))) continue;
    bounds.push(signed ? start - 1 : start, end);
  }
  return bounds;
}

/** `text` with each token of `bounds` turned into the JSON string `marker` + its digits. */
function quoteTokens(text: string, bounds: readonly number[], marker: string): string {
  let quoted = '';
  let from = 0;
  for (let k = 0; k < bounds.length; k += 2) {
    const start = bounds[k] as number;
    const end = bounds[k + 1] as number;
    quoted += `${text.slice(from, start)}"${marker}${text.slice(start, end)}"`;
    from = end;
  }
  return quoted + text.slice(from);
}

/**
 * Replaces in place every string value under `container` that starts with `marker` by the bigint of
 * the digits after it. Keys are never touched, and JSON.parse made `__proto__` an own property, so
 * assigning to it stores the value rather than setting the prototype. Writes only what it replaces:
 * writing every slot back made the walk four times slower.
 */
function restoreBigIntegers(container: object, marker: string): void {
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const item: unknown = container[i];
      if (typeof item === 'string') {
        if (item.startsWith(marker)) container[i] = BigInt(item.slice(marker.length));
      } else if (typeof item === 'object' && item !== null) restoreBigIntegers(item, marker);
    }
    return;
  }
  const record = container as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    if (typeof item === 'string') {
      if (item.startsWith(marker)) record[key] = BigInt(item.slice(marker.length));
    } else if (typeof item === 'object' && item !== null) restoreBigIntegers(item, marker);
  }
}

/**
 * Like JSON.parse, but integers outside ±(2^53 - 1) come back as `bigint`; every other number is the
 * `number` JSON.parse gives. Malformed JSON throws SyntaxError. A repeated key keeps its last value as
 * JSON.parse does, big integers or not: RFC 8259 §4 leaves it to the parser, and one rule for every
 * text beats a SyntaxError that depends on some other field holding a big integer.
 *
 * Fast path: JSON.parse, then a walk for numbers beyond the safe range (~10% of a JSON.parse; scanning
 * the text first would add 20-25% to every text). A text holding one is scanned for its integer tokens
 * outside strings, each is turned into a string bearing a per-call random marker, and the text is
 * parsed again: JSON.parse still builds the structure, and only the marked strings become bigints
 * (~2.7× a JSON.parse in all). A text nested thousands of levels deep parses as JSON.parse reads it,
 * but if it holds big integers it throws SyntaxError: no real envelope nests so deep, so it is
 * refused rather than rounded.
 */
export function parseJsonText(text: string): unknown {
  if (typeof text !== 'string') throw new TypeError('parseJsonText expects a string');
  const value: unknown = JSON.parse(text);
  if (!mayHoldBigIntegers(value)) return value;
  const bounds = findBigIntegerTokens(text);
  if (bounds.length === 0) return value;
  // Random per call, so no string of the text can pass for a marker, however it was crafted.
  const marker = randomUUID();
  // JSON.parse accepted the text, and a string stands wherever a number may: the structure is the same.
  const marked: unknown = JSON.parse(quoteTokens(text, bounds, marker));
  if (typeof marked === 'string') return BigInt(marked.slice(marker.length));
  try {
    // No count check: fewer markers than tokens come back when a repeated key drops a value.
    restoreBigIntegers(marked as object, marker);
    return marked;
  } catch (error) {
    if (error instanceof RangeError) {
      throw new SyntaxError('JSON nested too deeply to read its big integers exactly', { cause: error });
    }
    throw error;
  }
}

/**
 * A received body's text as JSON is read: without a leading byte order mark (U+FEFF), which RFC 8259
 * section 8.1 lets a parser ignore. Only for the parse: the text stored and hashed keeps every byte.
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * JSON.stringify that writes bigints as their digits (so parseJsonText round-trips them). Throws
 * TypeError for a value JSON cannot represent at the top level (undefined, a function, a symbol).
 */
export function stringifyJson(value: unknown, space?: number | string): string {
  let text: string | undefined;
  try {
    // Fast path (about half the cost of lossless-json's): JSON.stringify throws TypeError on a bigint.
    text = JSON.stringify(value, undefined, space);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    text = stringifyLossless(value, undefined, space);
  }
  if (text === undefined) throw new TypeError(`stringifyJson cannot represent ${typeof value}`);
  return text;
}

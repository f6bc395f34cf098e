/**
 * JSON that keeps 64-bit integers exact (Company funding amounts and Usage counters are int64):
 * integers beyond Number.MAX_SAFE_INTEGER parse to bigint and stringify back to their digits.
 */
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

const INTEGER_TOKEN = /^-?\d+$/;

function parseNumberToken(token: string): number | bigint {
  const n = Number(token);
  if (INTEGER_TOKEN.test(token) && !Number.isSafeInteger(n)) return BigInt(token);
  return n;
}

/**
 * True when JSON.parse gave a number beyond ±MAX_SAFE_INTEGER somewhere in `value`: every integer
 * token JSON.parse may have rounded lands there (a number in exponent form can too; re-reading it
 * losslessly gives the same number). Recursive because that is the fastest walk.
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
      stack.push(...(Array.isArray(value) ? value : Object.values(value)));
    }
  }
  return false;
}

function needsLosslessParse(value: unknown): boolean {
  try {
    return hasUnsafeNumber(value);
  } catch (error) {
    if (error instanceof RangeError) return hasUnsafeNumberDeep(value);
    throw error;
  }
}

/**
 * Like JSON.parse, but integers outside ±(2^53 - 1) come back as `bigint`; every other number is the
 * `number` JSON.parse gives. Malformed JSON throws SyntaxError.
 *
 * Fast path: JSON.parse, then a walk for numbers beyond the safe range; only a text holding one is
 * read again with lossless-json. (Scanning the text for a 16-digit run first costs ~40% of a
 * JSON.parse, the walk ~8%.) On that slow path a key repeated with a different value throws
 * SyntaxError, where JSON.parse keeps the last value, and so does nesting thousands of levels deep.
 */
export function parseJsonText(text: string): unknown {
  if (typeof text !== 'string') throw new TypeError('parseJsonText expects a string');
  const value: unknown = JSON.parse(text);
  if (!needsLosslessParse(value)) return value;
  try {
    return parseLossless(text, null, parseNumberToken);
  } catch (error) {
    // lossless-json recurses per nesting level; thousands of levels exhaust the stack. No real
    // envelope nests so deep, so it is malformed input: refuse it rather than round its integers.
    if (error instanceof RangeError) {
      throw new SyntaxError('JSON nested too deeply to read its big integers exactly', { cause: error });
    }
    throw error;
  }
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

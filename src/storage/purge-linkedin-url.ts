/**
 * How `purge --person` recognises a person: LinkedIn URLs compared normalized (trimmed, case-insensitive,
 * without trailing slashes). SQL only pre-filters with a LIKE pattern that can over-match but never
 * under-match; the exact comparison is made here, in one place, so that both dialects decide alike.
 */
import { withoutByteOrderMark } from '../contract/json.js';

/** Fewest characters a normalized URL may have (the interface's LinkedIn values are 3 to 500). */
export const MIN_LINKEDIN_URL_LENGTH = 3;

/**
 * The form two LinkedIn URLs are compared in: U+0000 dropped (as normalization drops it), trimmed,
 * lower-cased, trailing slashes removed.
 */
export function normalizeLinkedinUrl(value: string): string {
  return value.replaceAll('\u0000', '').trim().toLowerCase().replace(/\/+$/, '');
}

/** A normalized URL, or TypeError when `value` is not a usable one. */
export function parseLinkedinUrl(value: unknown): string {
  if (typeof value !== 'string') throw new TypeError('the person must be given as a LinkedIn URL string');
  const normalized = normalizeLinkedinUrl(value);
  if (normalized.length < MIN_LINKEDIN_URL_LENGTH) {
    throw new TypeError(`"${value}" is not a LinkedIn URL (at least ${MIN_LINKEDIN_URL_LENGTH} characters)`);
  }
  return normalized;
}

/** True when `value` is a string equal to the normalized URL `needle` once normalized itself. */
export function isSameLinkedinUrl(value: unknown, needle: string): boolean {
  return typeof value === 'string' && normalizeLinkedinUrl(value) === needle;
}

/**
 * A pattern for `lower(column) LIKE pattern ESCAPE '\'` that matches every text containing a string
 * equal to `needle` after normalization, as such or inside JSON. ASCII letters, digits and most
 * punctuation are matched literally (LIKE's `%` and `_` escaped); every other character becomes `%`:
 * non-ASCII (lower() differs between SQLite, ASCII only, and Postgres; JSON may write it \uXXXX), and
 * what JSON may escape (`"`, `\`, `/`, control characters).
 */
export function linkedinUrlLikePattern(needle: string): string {
  let pattern = '%';
  for (const char of needle) {
    const code = char.codePointAt(0)!;
    if (code > 0x7e || code < 0x20 || char === '"' || char === '\\' || char === '/') {
      if (!pattern.endsWith('%') || pattern.endsWith('\\%')) pattern += '%';
    } else {
      pattern += char === '%' || char === '_' ? `\\${char}` : char;
    }
  }
  return pattern.endsWith('%') && !pattern.endsWith('\\%') ? pattern : `${pattern}%`;
}

/** True when some string value anywhere in the JSON value `root` equals the normalized URL `needle`. */
export function jsonMentionsLinkedinUrl(root: unknown, needle: string): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (isSameLinkedinUrl(value, needle)) return true;
    } else if (typeof value === 'object' && value !== null) {
      stack.push(...(Array.isArray(value) ? value : Object.values(value)));
    }
  }
  return false;
}

/**
 * True when a stored text (an envelope, a quarantined body) mentions the person: a JSON document through
 * its string values; anything that is not JSON by containing the URL at all.
 */
export function textMentionsLinkedinUrl(text: string, needle: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutByteOrderMark(text));
  } catch {
    return text.toLowerCase().includes(needle);
  }
  return jsonMentionsLinkedinUrl(parsed, needle);
}

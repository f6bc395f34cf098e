/**
 * The one rule for a string a remote party chose (an error message, a policy name, a field a CRM or a
 * source returned) before it reaches a log line, `last_error`, a database row or the status page (issue 43):
 * control characters (C0, DEL, C1, bidirectional overrides) become spaces, and the text is cut to a bounded
 * length, so that one answer cannot grow the database, the logs or a scrape.
 */

/** Characters kept of a string from outside, the ellipsis included. */
export const MAX_OUTSIDE_TEXT_CHARS = 500;

/** C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and isolates (Unicode TR 9). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job.
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = new RegExp(`${CONTROL_CHARACTERS.source}+`, 'g');

/**
 * `text` without control characters (each run becomes one space) and at most `maxChars` long (cut with
 * `…`). Only the start of a long string is looked at, so its cost does not grow with its length.
 */
export function boundOutsideText(text: string, maxChars = MAX_OUTSIDE_TEXT_CHARS): string {
  if (!Number.isSafeInteger(maxChars) || maxChars < 1) throw new TypeError('maxChars must be at least 1');
  const head = text.length > maxChars * 2 ? text.slice(0, maxChars * 2) : text;
  const clean = head.replace(CONTROLS, ' ');
  if (clean.length <= maxChars && head.length === text.length) return clean;
  if (clean.length <= maxChars) return `${clean.slice(0, maxChars - 1)}…`;
  let cut = clean.slice(0, maxChars - 1);
  // Never leave half of a surrogate pair at the cut.
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

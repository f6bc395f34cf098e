/**
 * The formula guard (OWASP "CSV injection"): no exported cell may make a spreadsheet evaluate a formula.
 * A value whose first significant character is = + - @ tab CR or LF — or a look-alike that some
 * spreadsheets fold into one of them — gets a leading single quote, unless the whole value is a plain
 * finite number such as -3 or 1.5e3. The mapping is reversible ({@link unguardFormula}).
 */

/** Characters that start a formula (or a DDE payload) in Excel, LibreOffice or Google Sheets. */
const TRIGGERS = new Set([
  '=',
  '+',
  '-',
  '@',
  '\t',
  '\r',
  '\n',
  // Look-alikes: full-width and small forms (folded by East Asian input and by some importers), minus signs.
  '\uff1d', // FULLWIDTH EQUALS SIGN
  '\uff0b', // FULLWIDTH PLUS SIGN
  '\uff0d', // FULLWIDTH HYPHEN-MINUS
  '\uff20', // FULLWIDTH COMMERCIAL AT
  '\ufe66', // SMALL EQUALS SIGN
  '\ufe62', // SMALL PLUS SIGN
  '\ufe63', // SMALL HYPHEN-MINUS
  '\ufe6b', // SMALL COMMERCIAL AT
  '\u2212', // MINUS SIGN
  '\u2796', // HEAVY MINUS SIGN
  '\u2795', // HEAVY PLUS SIGN
  '\u207a', // SUPERSCRIPT PLUS SIGN
  '\u207b', // SUPERSCRIPT MINUS
  '\u208a', // SUBSCRIPT PLUS SIGN
  '\u208b', // SUBSCRIPT MINUS
]);

/**
 * Characters a spreadsheet may skip before it looks for a formula: spaces of every width and invisible
 * joiners. "  =1+1" is guarded like "=1+1".
 */
const SKIPPABLE = /^[\u0020\u00a0\u1680\u2000-\u200d\u2028\u2029\u202f\u205f\u2060\u3000\ufeff]*/u;

/** A plain decimal number, the only kind of value that may start with + or - unguarded. */
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The neutralising prefix. */
export const FORMULA_GUARD_PREFIX = "'";

/** True when `value` is a plain finite number (-3, 1.5e3, +42); "+33 1 23 45 67 89" is not. */
export function isPlainNumber(value: string): boolean {
  return PLAIN_NUMBER.test(value) && Number.isFinite(Number(value));
}

/** True when a spreadsheet could read `value` as a formula. */
export function startsFormula(value: string): boolean {
  // Fast path: most cells start with a letter or a digit, which no trigger or skippable character is.
  const code = value.charCodeAt(0);
  if (Number.isNaN(code) || ((code > 0x40 || (code >= 0x30 && code <= 0x39)) && code < 0xa0)) return false;
  const skipped = SKIPPABLE.exec(value)?.[0].length ?? 0;
  // Iterate by code point: a trigger is never a surrogate, but the skip must not split one.
  const first = value.codePointAt(skipped);
  if (first === undefined) return false;
  return TRIGGERS.has(String.fromCodePoint(first)) && !isPlainNumber(value);
}

/**
 * Whether `value` gets the prefix: it starts a formula, or it already begins with quotes in front of
 * something that would (so that the guard stays reversible: "'=x" becomes "''=x").
 */
function needsGuard(value: string): boolean {
  let start = 0;
  while (value.startsWith(FORMULA_GUARD_PREFIX, start)) start += 1;
  return startsFormula(start === 0 ? value : value.slice(start));
}

/** Neutralises a cell value; every other value comes back unchanged. */
export function guardFormula(value: string): string {
  return needsGuard(value) ? FORMULA_GUARD_PREFIX + value : value;
}

/** The inverse of {@link guardFormula}: `unguardFormula(guardFormula(v)) === v` for every string v. */
export function unguardFormula(cell: string): string {
  if (cell.startsWith(FORMULA_GUARD_PREFIX)) {
    const rest = cell.slice(FORMULA_GUARD_PREFIX.length);
    if (needsGuard(rest)) return rest;
  }
  return cell;
}

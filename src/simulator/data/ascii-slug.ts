/**
 * ASCII slugs for domains, LinkedIn handles and URLs built from names that may hold accents, Polish or
 * Nordic letters or apostrophes ("Łukasz O'Brien" → "lukasz-obrien").
 */

/** Letters that Unicode decomposition leaves as they are, spelled the way an address would spell them. */
const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ł: 'l',
  đ: 'd',
  ø: 'o',
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
  ı: 'i',
};

const COMBINING_MARKS = /[\u0300-\u036f]/g;
const ASCII_ONLY = /^[\x20-\x7e]*$/;

/**
 * Lower-case ASCII words of `text` joined by `separator`: marks stripped, special letters folded,
 * apostrophes dropped inside words, every other non-alphanumeric run a word break. May be empty (e.g. kanji).
 */
export function toAsciiSlug(text: string, separator = '-'): string {
  const lower = text.toLowerCase();
  // Most names are plain ASCII: the Unicode decomposition is only needed for the others.
  const folded = ASCII_ONLY.test(lower)
    ? lower
    : lower
        .normalize('NFKD')
        .replace(COMBINING_MARKS, '')
        .replace(/[łđøßæœþı]/g, (letter) => LETTER_FOLDS[letter] ?? letter);
  const words = folded
    .replace(/['’]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
  return words.join(separator);
}

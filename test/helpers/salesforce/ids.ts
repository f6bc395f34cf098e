/**
 * Record ids as Salesforce makes them: a 3-character key prefix, 12 more characters, and the 3-character
 * case-safe suffix that turns the 15-character id into the 18-character one the API answers.
 */

const SUFFIX = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';

/** The 18-character id of a 15-character one. */
export function caseSafeId(id15: string): string {
  let suffix = '';
  for (let chunk = 0; chunk < 3; chunk += 1) {
    let bits = 0;
    for (let i = 0; i < 5; i += 1) {
      const char = id15.charAt(chunk * 5 + i);
      if (char >= 'A' && char <= 'Z') bits |= 1 << i;
    }
    suffix += SUFFIX.charAt(bits);
  }
  return id15 + suffix;
}

/** Ids for one object, in sequence: `001` + pod letters + a counter. */
export function idMaker(prefix: string): () => string {
  let next = 0;
  return () => {
    next += 1;
    return caseSafeId(`${prefix}Hs${next.toString(36).toUpperCase().padStart(10, '0')}`);
  };
}

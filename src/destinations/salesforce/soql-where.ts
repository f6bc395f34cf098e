/**
 * A Salesforce source's `soql_where`: the user's own SOQL WHERE clause, run in their own org with the
 * destination's credentials (docs/watches.md). It is not parsed (Salesforce does that, and names the problem
 * in its answer, which stops the cycle naming the watch); it is checked only for what would break the query
 * it is put into: `SELECT … FROM Contact WHERE (<clause>) AND Id > '…' ORDER BY Id LIMIT 2000`.
 */

/** Characters a clause may have: the query's URI stays far within Salesforce's 16,384. */
export const MAX_SOQL_WHERE_CHARS = 4_000;

/** Clauses of a query that cannot be inside a WHERE clause the source pages itself. */
const OUTSIDE_WHERE = /\b(?:order\s+by|group\s+by|limit|offset|having|for\s+(?:update|view|reference))\b/i;

/** What is wrong with `clause` (one short sentence), or undefined when it can be used. */
export function soqlWhereProblem(clause: string): string | undefined {
  if (clause.length > MAX_SOQL_WHERE_CHARS) return `must be at most ${MAX_SOQL_WHERE_CHARS} characters`;
  if (/^where\b/i.test(clause)) return 'is the condition only, without the word WHERE';
  // Outside string literals: balanced parentheses, no second statement, no clause of the query's own.
  let outside = '';
  for (let at = 0; at < clause.length; at += 1) {
    const char = clause.charAt(at);
    if (char !== "'") {
      outside += char;
      continue;
    }
    let closed = false;
    for (at += 1; at < clause.length; at += 1) {
      const inner = clause.charAt(at);
      if (inner === '\\') at += 1;
      else if (inner === "'") {
        closed = true;
        break;
      }
    }
    if (!closed) return 'has a string literal that is not closed';
    outside += "''";
  }
  let depth = 0;
  for (const char of outside) {
    depth += char === '(' ? 1 : char === ')' ? -1 : 0;
    if (depth < 0) return 'closes a parenthesis it did not open';
  }
  if (depth !== 0) return 'leaves a parenthesis open';
  if (outside.includes(';')) return 'must be one condition, without ";"';
  const clauseWord = OUTSIDE_WHERE.exec(outside);
  if (clauseWord !== null) {
    return `must be a WHERE condition only (found "${clauseWord[0].toUpperCase()}"); the source orders and pages by Id itself`;
  }
  return undefined;
}

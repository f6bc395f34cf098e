/**
 * Statements with many bound parameters are cut into chunks that stay under both dialects' limits
 * (SQLite 32766, Postgres 65535): a Search Contact page of 250 persons is one statement, not 250.
 */

/** Bound parameters per statement, below SQLite's 32766 and Postgres's 65535. */
export const MAX_PARAMETERS_PER_STATEMENT = 30_000;

/** `items` cut into runs of at most `parametersPerItem`-sized items per statement. */
export function chunkForParameters<T>(
  items: readonly T[],
  parametersPerItem: number,
  maxParameters: number = MAX_PARAMETERS_PER_STATEMENT,
): T[][] {
  const size = Math.max(1, Math.floor(maxParameters / Math.max(1, parametersPerItem)));
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * The one chunking helper of the CRM code: items cut into runs of a call's (or a statement's) worth, and work
 * over items a few at a time with results in order (a read's SOQL queries, Salesforce limiting long-running
 * requests, not short ones).
 */

/** `items` in chunks of `size` (at least one an item). */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const step = Math.max(1, size);
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += step) out.push(items.slice(at, at + step));
  return out;
}

/** `work` over `items`, at most `limit` at a time; the results in the items' order. The first failure rejects. */
export async function mapInParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let at = next++; at < items.length; at = next++) results[at] = await work(items[at]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

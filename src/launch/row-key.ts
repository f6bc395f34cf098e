/**
 * A row's identity across runs: sha-256 of the operation and its request, keys sorted, webhook_url left
 * out (where the callback goes does not change what is bought). The same row of the same file, read again,
 * gives the same key; a different page of a search is a different key.
 */
import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, canonical(record[key])]),
    );
  }
  return value;
}

/** The key of `request` launched as `operation`. */
export function rowKey(operation: string, request: Readonly<Record<string, unknown>>): string {
  const { webhook_url: _ignored, ...rest } = request;
  const text = JSON.stringify([operation, canonical(rest)], (_key, v: unknown) =>
    typeof v === 'bigint' ? v.toString() : v,
  );
  return createHash('sha256').update(text).digest('hex');
}

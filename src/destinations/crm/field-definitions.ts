/**
 * A CRM's field definitions, read once per object and kept for a while (a field created meanwhile is seen
 * after the TTL). A read that fails is forgotten, so the next batch asks again.
 */
import type { FieldDefinition } from './check-values.js';
import type { CrmAdapter, CrmObject } from './crm-adapter.js';

/** Field definitions are read again after this long. */
export const DEFINITIONS_TTL_MS = 600_000;

/** The definitions of an object, from the cache or the CRM. */
export type FieldDefinitionsOf = (
  object: CrmObject,
  signal: AbortSignal,
) => Promise<ReadonlyMap<string, FieldDefinition> | undefined>;

/** Creates the cache over `adapter`. */
export function createFieldDefinitions(adapter: CrmAdapter, now: () => number): FieldDefinitionsOf {
  const cache = new Map<
    CrmObject,
    { at: number; value: Promise<ReadonlyMap<string, FieldDefinition> | undefined> }
  >();
  return (object, signal) => {
    const held = cache.get(object);
    if (held !== undefined && now() - held.at < DEFINITIONS_TTL_MS) return held.value;
    const value = adapter.fieldDefinitions(object, signal).catch((error: unknown) => {
      cache.delete(object);
      throw error;
    });
    cache.set(object, { at: now(), value });
    return value;
  };
}

/**
 * Before a record is created, the one the CRM already holds is found (design: "the CRM is the user's"): a
 * carried record id first; then the ids recorded once found (`crm_record_ids`, so a record found once is
 * never searched again); then a read by the destination's key (a record hooksync wrote or stamped); then
 * the CRM's search by what a sales team types (a company's domain, a contact's e-mail, then its LinkedIn
 * URL), many values per call, paced by the adapter. One match is adopted (written by its id, the key
 * stamped under the write policy); several are ambiguous (the record's events fail with the candidates'
 * ids, replayable after a merge), never guessed; none is created.
 */
import type { CrmAdapter, CrmObject, SearchField } from './crm-adapter.js';
import { chunksOf } from './write-records.js';

/** Where the ids already found are kept (the destination's rows of `crm_record_ids`). */
export interface RecordIdStore {
  lookUp(object: CrmObject, keys: readonly string[]): Promise<Map<string, string>>;
  record(object: CrmObject, ids: ReadonlyMap<string, string>): Promise<void>;
}

/** A record to find: its key, the id it carries, and the values to search by, in order. */
export interface FindInput {
  readonly idProperty: string;
  readonly key: string;
  readonly carriedId: string | undefined;
  /**
   * Whether the key field is one people fill in themselves (HubSpot's `email`): a read by key then finds
   * what they typed, cheaper than a search. A key of hooksync's own (a unique custom field) is read from
   * the search's answer instead, which carries each candidate's key.
   */
  readonly readFirst: boolean;
  readonly lookups: ReadonlyArray<{ readonly field: SearchField; readonly value: string }>;
}

/** What was found for a record. */
export type Found =
  /** Write by its key (it carries it, or nothing was found: created). */
  | { readonly kind: 'by-key' }
  /** Write to this record (carried or adopted). */
  | { readonly kind: 'id'; readonly id: string; readonly how: 'carried' | 'adopted' }
  | { readonly kind: 'ambiguous'; readonly ids: readonly string[] };

/** Finds what the CRM holds for `inputs` (one object, one idProperty); results by key. */
export async function findExisting(options: {
  readonly adapter: CrmAdapter;
  readonly store: RecordIdStore | undefined;
  readonly object: CrmObject;
  readonly inputs: readonly FindInput[];
  readonly signal: AbortSignal;
}): Promise<Map<string, Found>> {
  const { adapter, store, object, inputs, signal } = options;
  const found = new Map<string, Found>();
  let open = inputs.filter((input) => {
    if (input.carriedId === undefined) return true;
    found.set(input.key, { kind: 'id', id: input.carriedId, how: 'carried' });
    return false;
  });
  if (open.length === 0 || adapter.search === undefined) return fill(found, inputs);
  const recorded =
    store === undefined
      ? new Map<string, string>()
      : await store.lookUp(
          object,
          open.map((input) => input.key),
        );
  open = open.filter((input) => !recorded.has(input.key));
  if (open.length === 0) return fill(found, inputs);
  const idProperty = open[0]!.idProperty;
  const keyed = new Map<string, string>();
  for (const chunk of chunksOf(
    open.filter((input) => input.readFirst),
    adapter.limits.readBatch,
  )) {
    const keys = chunk.map((input) => input.key);
    for (const [key, record] of await adapter.read(object, idProperty, keys, [], signal))
      keyed.set(key, record.id);
  }
  open = open.filter((input) => !keyed.has(input.key));
  const fields = [...new Set(open.flatMap((input) => input.lookups.map((lookup) => lookup.field)))];
  for (const field of fields) {
    const asking = open.filter((input) => input.lookups.some((lookup) => lookup.field === field));
    if (asking.length === 0) continue;
    const lookupValue = (input: FindInput) => input.lookups.find((lookup) => lookup.field === field)!.value;
    const candidates = await adapter.search(
      object,
      field,
      [...new Set(asking.map(lookupValue))],
      idProperty,
      signal,
    );
    const settled = new Set<string>();
    for (const input of asking) {
      const all = candidates.get(lookupValue(input)) ?? [];
      const own = all.find((candidate) => candidate.key?.trim().toLowerCase() === input.key);
      if (own !== undefined) {
        // Already keyed (written or stamped before): written by its key.
        keyed.set(input.key, own.id);
        settled.add(input.key);
        continue;
      }
      // A record that carries another key of ours belongs to that key, not to this one.
      const ids = all.filter((candidate) => candidate.key === undefined).map((candidate) => candidate.id);
      if (ids.length === 0) continue;
      settled.add(input.key);
      found.set(
        input.key,
        ids.length === 1
          ? { kind: 'id', id: ids[0]!, how: 'adopted' }
          : { kind: 'ambiguous', ids: [...ids].sort() },
      );
    }
    open = open.filter((input) => !settled.has(input.key));
  }
  await store?.record(object, keyed);
  return fill(found, inputs);
}

function fill(found: Map<string, Found>, inputs: readonly FindInput[]): Map<string, Found> {
  for (const input of inputs) if (!found.has(input.key)) found.set(input.key, { kind: 'by-key' });
  return found;
}

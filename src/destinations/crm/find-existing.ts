/**
 * Before a record is created, the one the CRM already holds is found (design: "the CRM is the user's"), each
 * step only for what the previous found nothing for: a carried record id; the ids recorded once found
 * (`crm_record_ids`: a record found once is written by its id, never searched again); a read by the
 * destination's key (a record hooksync wrote or stamped); then the CRM's search by what a sales team types,
 * in the lookups' order (a contact's e-mail, LinkedIn URL, full name at the same company; a company's
 * domain, website host, exact name), many values per call, paced by the adapter. One match is adopted
 * (written by its id, the key stamped under the write policy, its id recorded); several are ambiguous (the
 * record's events fail with the candidates' ids, replayable after a merge), never guessed; none is created.
 */
import type { CrmAdapter, CrmObject, SearchCandidate, SearchField } from './crm-adapter.js';
import { chunksOf } from './in-chunks.js';
import { isEmailAt } from './normalize-keys.js';

/** Where the ids already found are kept (the destination's rows of `crm_record_ids`). */
export interface RecordIdStore {
  lookUp(object: CrmObject, keys: readonly string[]): Promise<Map<string, string>>;
  record(object: CrmObject, ids: ReadonlyMap<string, string>): Promise<void>;
}

/** One value to search a record by, and what a candidate must show to be it. */
export interface Lookup {
  readonly field: SearchField;
  readonly value: string;
  /**
   * A full name counts only at the same company: a candidate linked to `id` (when the company's record is
   * known) or to a company at `domain`, or whose e-mail is at `domain`.
   */
  readonly company?: { readonly id: string | undefined; readonly domain: string } | undefined;
  /** A company found by website or name that holds another domain than this one is another company. */
  readonly domain?: string | undefined;
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
  readonly lookups: readonly Lookup[];
}

/** What was found for a record. */
export type Found =
  /** Write by its key (it carries it, or nothing was found: created). */
  | { readonly kind: 'by-key' }
  /** Write to this record (carried, recorded before, or adopted now). */
  | { readonly kind: 'id'; readonly id: string; readonly how: 'carried' | 'recorded' | 'adopted' }
  | { readonly kind: 'ambiguous'; readonly ids: readonly string[] };

/** Whether `candidate` may be the record `lookup` looks for. */
function fits(candidate: SearchCandidate, lookup: Lookup): boolean {
  const { company, domain } = lookup;
  if (company !== undefined)
    return (
      (company.id !== undefined && candidate.companyId === company.id) ||
      candidate.companyDomain === company.domain ||
      isEmailAt(candidate.email, company.domain)
    );
  return domain === undefined || candidate.domain === undefined || candidate.domain === domain;
}

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
  if (open.length === 0) return fill(found, inputs);
  const recorded =
    store === undefined
      ? new Map<string, string>()
      : await store.lookUp(
          object,
          open.map((input) => input.key),
        );
  // A CRM that reads only its key → id map (Pipedrive) writes a recorded key by that id itself.
  if (adapter.readsByKey !== false)
    for (const [key, id] of recorded) found.set(key, { kind: 'id', id, how: 'recorded' });
  open = open.filter((input) => !recorded.has(input.key));
  if (open.length === 0 || adapter.search === undefined) return fill(found, inputs);
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
  // Step by step: each record's next lookup, only while nothing was found for it.
  for (let step = 0; open.length > 0; step += 1) {
    const asking = open.filter((input) => input.lookups[step] !== undefined);
    if (asking.length === 0) break;
    const fields = [...new Set(asking.map((input) => input.lookups[step]!.field))];
    const settled = new Set<string>();
    for (const field of fields) {
      const these = asking.filter((input) => input.lookups[step]!.field === field);
      const candidates = await adapter.search(
        object,
        field,
        [...new Set(these.map((input) => input.lookups[step]!.value))],
        idProperty,
        signal,
      );
      for (const input of these) {
        const lookup = input.lookups[step]!;
        const all = (candidates.get(lookup.value) ?? []).filter((candidate) => fits(candidate, lookup));
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

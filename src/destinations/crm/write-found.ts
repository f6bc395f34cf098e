/**
 * One object's records of one key property written where the CRM holds them: each first found
 * (find-existing.ts: carried id, recorded id, read by key, search), an ambiguous one failed naming the
 * candidates, the rest written (write-records.ts), and the ids written or found recorded.
 */
import type { FieldDefinition } from './check-values.js';
import type { CrmAdapter, CrmObject } from './crm-adapter.js';
import { type FindInput, findExisting, type Lookup, type RecordIdStore } from './find-existing.js';
import type { ContactRecord } from './map-records.js';
import { type WriteInput, type WriteOutcome, writeRecords } from './write-records.js';

/** What writing one object's records needs: the adapter, the id store, the field definitions, the dry run. */
export interface FoundContext {
  readonly adapter: CrmAdapter;
  readonly store: RecordIdStore | undefined;
  readonly definitions: (object: CrmObject) => Promise<ReadonlyMap<string, FieldDefinition> | undefined>;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}

/**
 * Writes one object's records of one idProperty: each first looked for in the CRM (find-existing.ts), an
 * ambiguous one failed with the candidates' ids and not written; the ids written or found are recorded.
 * Outcomes in `inputs` order.
 */
export async function writeFound(
  run: FoundContext,
  object: CrmObject,
  inputs: ReadonlyArray<WriteInput & { readonly find: FindInput; readonly keyless?: boolean }>,
): Promise<{ outcomes: WriteOutcome[]; calls: number }> {
  const { adapter, store, dryRun, signal } = run;
  const found = await findExisting({
    adapter,
    store,
    object,
    inputs: inputs.map((input) => input.find),
    signal,
  });
  const writable = inputs.filter((input) => found.get(input.key)?.kind !== 'ambiguous');
  // A record known only by its carried id has no key to remember it by.
  const keyless = new Set(inputs.filter((input) => input.keyless === true).map((input) => input.key));
  // Each create's id is recorded once its call is answered (a kill then loses at most the call in flight).
  const recorded = new Set<string>();
  const created = async (ids: ReadonlyMap<string, string>) => {
    const keyed = new Map([...ids].filter(([key]) => !keyless.has(key)));
    if (dryRun || store === undefined || keyed.size === 0) return;
    await store.record(object, keyed);
    for (const key of keyed.keys()) recorded.add(key);
  };
  const written = await writeRecords({
    adapter,
    object,
    inputs: writable.map(({ find: _, keyless: __, ...input }) => {
      const it = found.get(input.key);
      return it?.kind === 'id' ? { ...input, id: it.id, adopted: it.how === 'adopted' } : input;
    }),
    definitions: await run.definitions(object),
    dryRun,
    signal,
    created,
  });
  const byKey = new Map(writable.map((input, at) => [input.key, written.outcomes[at]!]));
  const ids = new Map<string, string>();
  for (const [key, outcome] of byKey)
    if (outcome.action !== 'failed' && outcome.id !== undefined && !keyless.has(key) && !recorded.has(key))
      ids.set(key, outcome.id);
  if (!dryRun) await store?.record(object, ids);
  const outcomes = inputs.map((input): WriteOutcome => {
    const it = found.get(input.key);
    if (it?.kind !== 'ambiguous') return byKey.get(input.key)!;
    const error = `ambiguous: ${adapter.name} holds ${it.ids.length} ${object} for it (${it.ids.join(', ')}); none adopted: merge them, then replay`;
    return { action: 'failed', id: undefined, changes: [], warnings: [], error };
  });
  return { outcomes, calls: written.calls };
}

/**
 * A contact's last lookup: its full name at its company (the company's record, once written or found, or
 * an e-mail at its domain); none without both names and a company.
 */
function fullNameLookup(
  record: ContactRecord,
  companyIds: ReadonlyMap<string, string | undefined>,
): Lookup[] {
  if (record.fullName === undefined || record.companyKey === undefined) return [];
  const company = { id: companyIds.get(record.companyKey), domain: record.companyKey };
  return [{ field: 'fullName', value: record.fullName, company }];
}

/** What a contact is looked up by, in order, before it is created. */
export function contactLookups(
  adapter: CrmAdapter,
  record: ContactRecord,
  companyIds: ReadonlyMap<string, string | undefined>,
): Lookup[] {
  const readsByKey = adapter.readsByKey !== false;
  const typed: Lookup[] = [
    // An e-mail key is the CRM's own e-mail field: the read by key already looked there (unless the
    // adapter reads only its map; then only the record's own key is searched, once).
    ...(record.email !== undefined && (record.email !== record.key || !readsByKey)
      ? [{ field: 'email' as const, value: record.email }]
      : []),
    ...(record.linkedinUrl !== undefined
      ? [{ field: 'linkedinUrl' as const, value: record.linkedinUrl }]
      : []),
  ];
  return [
    ...typed.filter((lookup) => readsByKey || lookup.value === record.key),
    ...fullNameLookup(record, companyIds),
  ];
}

/**
 * One batch of events written to a CRM: companies first (by their key), then contacts (by e-mail or their
 * key), then each contact linked to its company (in the contact's own write, or by a call of its own after
 * both are written). Every write is keyed, so a retried batch converges: the CRM's at-least-once delivery is
 * what makes it resumable. An event is delivered only when all its records (and link) are written.
 */
import type { FieldDefinition } from './check-values.js';
import type { CompanyLink, CrmAdapter, CrmObject } from './crm-adapter.js';
import { type FindInput, findExisting, type Lookup, type RecordIdStore } from './find-existing.js';
import { heldMoversAt } from './held-movers.js';
import { chunksOf } from './in-chunks.js';
import type { CompanyRecord, ContactRecord, CrmKeys, MappedBatch, SkippedRecord } from './map-records.js';
import { type FieldChange, type FieldPolicy, policyFor } from './plan-writes.js';
import { type WriteInput, type WriteOutcome, writeRecords } from './write-records.js';

/** How a destination writes. */
export interface SyncSettings {
  readonly keys: CrmKeys;
  readonly write: 'overwrite' | 'fill-empty';
  readonly fields: Readonly<Record<string, FieldPolicy>>;
  /** The fields a moved contact's new job makes current (they overwrite unless `fields` says otherwise). */
  readonly movedFields: readonly string[];
  /**
   * What becomes of a company known only as a contact's employer: written like any company (`write`, the
   * default), or only looked up by key, linked when the CRM holds it and never created (`find`: Salesforce,
   * where a person whose Account does not exist becomes a Lead).
   */
  readonly employers?: 'write' | 'find';
  /**
   * With `employers: 'find'`: which record ids are contacts (Salesforce: `003…`, not a Lead's `00Q…`); a
   * mover held as a contact gets its new employer written and is moved to it (held-movers.ts).
   */
  readonly isContactId?: ((id: string) => boolean) | undefined;
  /**
   * The contact's job change status field: a watch's job change (`moved`, `left`, `returned`, `title`)
   * overwrites it, with `movedFields`, unless `fields` says otherwise.
   */
  readonly statusField?: string | undefined;
}

/** One record's line of the report (and of the dry run). */
export interface RecordReport {
  readonly object: CrmObject;
  readonly key: string;
  readonly action: 'create' | 'update' | 'skip' | 'failed';
  readonly changes: readonly FieldChange[];
  readonly warnings: readonly string[];
  readonly reason?: string;
  readonly events: readonly number[];
  /** A record a sales team typed, found by search and made hooksync's in this write. */
  readonly adopted?: boolean;
}

/** What a batch came to: per record, and the events that failed (batch index → why). */
export interface SyncReport {
  readonly records: RecordReport[];
  readonly failedEvents: Map<number, string>;
  /** Associations written (or, in a dry run, that would be). */
  readonly associations: number;
  /** Write-path calls made (in a dry run: that the real run would make), property reads aside. */
  readonly calls: number;
  /**
   * A dry run on a CRM that charges per call (`CrmAdapter.tokens`): what its reads spent plus what its
   * planned writes would.
   */
  readonly tokens?: number;
}

function fail(failed: Map<number, string>, events: readonly number[], error: string): void {
  for (const event of events) if (!failed.has(event)) failed.set(event, error);
}

/** What `writeFound` needs of a batch's run. */
interface RunContext {
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
async function writeFound(
  run: RunContext,
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

/** Writes (or, with `dryRun`, plans) a mapped batch. Throws CrmError for trouble that is not a record's. */
export async function syncBatch(options: {
  readonly adapter: CrmAdapter;
  readonly batch: MappedBatch;
  readonly settings: SyncSettings;
  readonly definitions: (object: CrmObject) => Promise<ReadonlyMap<string, FieldDefinition> | undefined>;
  /** Where the record ids found are kept; undefined: every sync looks again. */
  readonly store?: RecordIdStore | undefined;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}): Promise<SyncReport> {
  const { adapter, batch, settings, dryRun, signal } = options;
  const records: RecordReport[] = batch.skipped.map((skip: SkippedRecord) => ({
    object: skip.object,
    key: '',
    action: skip.fails === true ? 'failed' : 'skip',
    changes: [],
    warnings: [],
    reason: skip.reason,
    events: [skip.event],
  }));
  const failed = new Map<number, string>();
  for (const skip of batch.skipped)
    if (skip.fails === true) fail(failed, [skip.event], `${skip.object}: ${skip.reason}`);
  const plain = policyFor({ write: settings.write, fields: settings.fields });
  const moved = policyFor({
    write: settings.write,
    fields: settings.fields,
    overwriting: settings.movedFields,
  });
  // A watch's job change makes the status current too.
  const changed = policyFor({
    write: settings.write,
    fields: settings.fields,
    overwriting: [
      ...settings.movedFields,
      ...(settings.statusField === undefined ? [] : [settings.statusField]),
    ],
  });
  const report = (object: CrmObject, record: CompanyRecord | ContactRecord, outcome: WriteOutcome) => {
    records.push({
      object,
      key: record.key,
      action: outcome.action,
      changes: outcome.changes,
      warnings: outcome.warnings,
      ...(outcome.error !== undefined ? { reason: outcome.error } : {}),
      events: record.events,
      ...(outcome.adopted === true && outcome.action !== 'failed' ? { adopted: true } : {}),
    });
    if (outcome.action === 'failed') fail(failed, record.events, `${object} ${record.key}: ${outcome.error}`);
  };

  const companyIds = new Map<string, string | undefined>();
  let calls = 0;
  const run: RunContext = { adapter, store: options.store, definitions: options.definitions, dryRun, signal };
  const findOnly = settings.employers === 'find';
  // A mover held as a contact lands at the new company: its employer is written (found, adopted or created).
  const moversAt =
    findOnly && settings.isContactId !== undefined
      ? await heldMoversAt({
          adapter,
          store: options.store,
          contacts: batch.contacts,
          isContactId: settings.isContactId,
          signal,
        })
      : new Set<string>();
  const lookedUp = (record: CompanyRecord) => findOnly && record.employerOnly && !moversAt.has(record.key);
  const toWrite = batch.companies.filter((record) => !lookedUp(record));
  // Employers looked up, not written: those the CRM does not hold leave their contacts unlinked.
  const unheld = new Set<string>();
  if (findOnly) {
    const keys = batch.companies.filter(lookedUp).map((record) => record.key);
    for (const chunk of chunksOf(keys, adapter.limits.readBatch)) {
      calls += 1;
      const held = await adapter.read('companies', settings.keys.companyKey, chunk, [], signal);
      for (const key of chunk) {
        const record = held.get(key);
        if (record === undefined) unheld.add(key);
        else companyIds.set(key, record.id);
      }
    }
  }
  const { outcomes: companyOutcomes, calls: companyCalls } = await writeFound(
    run,
    'companies',
    toWrite.map((record) => ({
      idProperty: settings.keys.companyKey,
      key: record.key,
      properties: record.properties,
      policyOf: plain,
      find: {
        idProperty: settings.keys.companyKey,
        key: record.key,
        carriedId: record.carriedId,
        readFirst: false,
        // As a team types a company: its domain, else its website's host, else its exact name; a record
        // found by website or name that holds another domain is another company.
        lookups: [
          { field: 'domain', value: record.key },
          { field: 'website', value: record.key, domain: record.key },
          ...(record.name !== undefined
            ? [{ field: 'name' as const, value: record.name, domain: record.key }]
            : []),
        ],
      },
    })),
  );
  calls += companyCalls;
  toWrite.forEach((record, index) => {
    const outcome = companyOutcomes[index]!;
    report('companies', record, outcome);
    if (outcome.action !== 'failed') companyIds.set(record.key, outcome.id);
  });

  const inWrite = adapter.links === 'in-write';
  const contactIds = new Map<ContactRecord, string | undefined>();
  for (const idProperty of new Set(batch.contacts.map((record) => record.idProperty))) {
    const group = batch.contacts.filter((record) => record.idProperty === idProperty);
    const written = await writeFound(
      run,
      'contacts',
      group.map((record) => ({
        idProperty,
        key: record.key,
        properties: record.properties,
        policyOf: record.change ? changed : record.status === 'moved' ? moved : plain,
        updateOnly: record.updateOnly,
        keyless: record.keyless,
        ...(inWrite && record.companyKey !== undefined && companyIds.has(record.companyKey)
          ? { company: { key: record.companyKey, id: companyIds.get(record.companyKey) } }
          : {}),
        find: {
          idProperty,
          key: record.key,
          carriedId: record.carriedId,
          readFirst: record.email === record.key && adapter.readsByKey !== false,
          lookups: ([] as Lookup[]).concat(
            [
              // An e-mail key is the CRM's own e-mail field: the read by key already looked there (unless
              // the adapter reads only its map; then only the record's own key is searched, once).
              ...(record.email !== undefined && (record.email !== record.key || adapter.readsByKey === false)
                ? [{ field: 'email' as const, value: record.email }]
                : []),
              ...(record.linkedinUrl !== undefined
                ? [{ field: 'linkedinUrl' as const, value: record.linkedinUrl }]
                : []),
            ].filter((lookup) => adapter.readsByKey !== false || lookup.value === record.key),
            fullNameLookup(record, companyIds),
          ),
        },
      })),
    );
    calls += written.calls;
    group.forEach((record, index) => {
      const outcome = written.outcomes[index]!;
      report('contacts', record, outcome);
      if (outcome.action !== 'failed') contactIds.set(record, outcome.id);
    });
  }

  const links: Array<{ record: ContactRecord; from: string | undefined; to: string | undefined }> = [];
  for (const [record, from] of contactIds) {
    if (record.companyKey === undefined || unheld.has(record.companyKey)) continue;
    if (!companyIds.has(record.companyKey)) {
      fail(failed, record.events, `contacts ${record.key}: its company ${record.companyKey} was not written`);
      continue;
    }
    links.push({ record, from, to: companyIds.get(record.companyKey) });
  }
  if (inWrite || adapter.link === undefined)
    return { records, failedEvents: failed, associations: links.length, calls };
  const { writeBatch } = adapter.limits;
  if (dryRun) {
    calls += Math.ceil(links.length / writeBatch);
    return { records, failedEvents: failed, associations: links.length, calls };
  }
  let associations = 0;
  for (const slice of chunksOf(links, writeBatch)) {
    const chunk = slice.filter((link) => {
      if (link.from !== undefined && link.to !== undefined) return true;
      fail(failed, link.record.events, `contacts ${link.record.key}: a record id is unknown, not associated`);
      return false;
    });
    if (chunk.length === 0) continue;
    calls += 1;
    const refused = await adapter.link(
      chunk.map(
        ({ record, from, to }): CompanyLink => ({
          contactId: from!,
          companyId: to!,
          primary: record.primary,
        }),
      ),
      signal,
    );
    chunk.forEach(({ record }, at) => {
      const error = refused[at];
      if (error === undefined) associations += 1;
      else
        fail(
          failed,
          record.events,
          `contacts ${record.key}: association with company ${record.companyKey} refused: ${error}`,
        );
    });
  }
  return { records, failedEvents: failed, associations, calls };
}

/**
 * One batch of events written to a CRM: companies first (by their key), then contacts (by e-mail or their
 * key), then each contact linked to its company (in the contact's own write, or by a call of its own after
 * both are written). Every write is keyed, so a retried batch converges: the CRM's at-least-once delivery is
 * what makes it resumable. An event is delivered only when all its records (and link) are written.
 */
import type { FieldDefinition } from './check-values.js';
import type { CompanyLink, CrmAdapter, CrmObject } from './crm-adapter.js';
import type { RecordIdStore } from './find-existing.js';
import { heldMoversAt } from './held-movers.js';
import { chunksOf } from './in-chunks.js';
import type { CompanyRecord, ContactRecord, CrmKeys, MappedBatch, SkippedRecord } from './map-records.js';
import { type FieldChange, type FieldPolicy, policyFor } from './plan-writes.js';
import { contactLookups, type FoundContext, writeFound } from './write-found.js';
import type { WriteOutcome } from './write-records.js';

/** How a destination writes. */
export interface SyncSettings {
  readonly keys: CrmKeys;
  readonly write: 'overwrite' | 'fill-empty';
  readonly fields: Readonly<Record<string, FieldPolicy>>;
  /** The fields a moved contact's new job makes current (they overwrite unless `fields` says otherwise). */
  readonly movedFields: readonly string[];
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

/** What a batch's steps share: what writing one object's records needs, and the destination's settings. */
interface RunContext extends FoundContext {
  readonly settings: SyncSettings;
}

/** A batch's report as its steps make it: per record, the events failed (the first reason each), the calls. */
class BatchTally {
  readonly records: RecordReport[] = [];
  readonly failed = new Map<number, string>();
  calls = 0;

  constructor(skipped: readonly SkippedRecord[]) {
    for (const skip of skipped) {
      this.records.push({
        object: skip.object,
        key: '',
        action: skip.fails === true ? 'failed' : 'skip',
        changes: [],
        warnings: [],
        reason: skip.reason,
        events: [skip.event],
      });
      if (skip.fails === true) this.fail([skip.event], `${skip.object}: ${skip.reason}`);
    }
  }

  fail(events: readonly number[], error: string): void {
    for (const event of events) if (!this.failed.has(event)) this.failed.set(event, error);
  }

  /** One record's line; a failed record fails its events. */
  add(object: CrmObject, record: CompanyRecord | ContactRecord, outcome: WriteOutcome): void {
    this.records.push({
      object,
      key: record.key,
      action: outcome.action,
      changes: outcome.changes,
      warnings: outcome.warnings,
      ...(outcome.error !== undefined ? { reason: outcome.error } : {}),
      events: record.events,
      ...(outcome.adopted === true && outcome.action !== 'failed' ? { adopted: true } : {}),
    });
    if (outcome.action === 'failed') this.fail(record.events, `${object} ${record.key}: ${outcome.error}`);
  }

  report(associations: number): SyncReport {
    return { records: this.records, failedEvents: this.failed, associations, calls: this.calls };
  }
}

/** The write policies of a destination: plain, a mover's, a watch change's. */
interface Policies {
  readonly plain: (property: string) => FieldPolicy;
  readonly moved: (property: string) => FieldPolicy;
  readonly changed: (property: string) => FieldPolicy;
}

function policiesOf(settings: SyncSettings): Policies {
  const { write, fields } = settings;
  return {
    plain: policyFor({ write, fields }),
    moved: policyFor({ write, fields, overwriting: settings.movedFields }),
    // A watch's job change makes the status current too.
    changed: policyFor({
      write,
      fields,
      overwriting: [
        ...settings.movedFields,
        ...(settings.statusField === undefined ? [] : [settings.statusField]),
      ],
    }),
  };
}

/** Where the batch's companies stand: the ids known by key, and the employers looked up but not held. */
interface Companies {
  readonly ids: Map<string, string | undefined>;
  readonly unheld: ReadonlySet<string>;
}

/**
 * On a CRM whose persons without a held company are not contacts (`isContact`): the employers that are
 * only looked up (those of no mover held as a contact), read by key; the others to write.
 */
async function lookUpEmployers(
  run: RunContext,
  tally: BatchTally,
  batch: MappedBatch,
): Promise<{ toWrite: CompanyRecord[]; companies: Companies }> {
  const { adapter, signal } = run;
  const ids = new Map<string, string | undefined>();
  const unheld = new Set<string>();
  if (adapter.isContact === undefined) return { toWrite: batch.companies, companies: { ids, unheld } };
  // A mover held as a contact lands at the new company: its employer is written (found, adopted or created).
  const moversAt = await heldMoversAt({
    adapter,
    store: run.store,
    contacts: batch.contacts,
    isContactId: (id) => adapter.isContact!(id),
    signal,
  });
  const lookedUp = (record: CompanyRecord) => record.employerOnly && !moversAt.has(record.key);
  const keys = batch.companies.filter(lookedUp).map((record) => record.key);
  for (const chunk of chunksOf(keys, adapter.limits.readBatch)) {
    tally.calls += 1;
    const held = await adapter.read('companies', run.settings.keys.companyKey, chunk, [], signal);
    for (const key of chunk) {
      const record = held.get(key);
      if (record === undefined) unheld.add(key);
      else ids.set(key, record.id);
    }
  }
  return { toWrite: batch.companies.filter((record) => !lookedUp(record)), companies: { ids, unheld } };
}

/** Writes the companies, found first as a team types them; their ids join `companies`. */
async function writeCompanies(
  run: RunContext,
  tally: BatchTally,
  records: readonly CompanyRecord[],
  policies: Policies,
  companies: Companies,
): Promise<void> {
  const companyKey = run.settings.keys.companyKey;
  const { outcomes, calls } = await writeFound(
    run,
    'companies',
    records.map((record) => ({
      idProperty: companyKey,
      key: record.key,
      properties: record.properties,
      policyOf: policies.plain,
      find: {
        idProperty: companyKey,
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
  tally.calls += calls;
  records.forEach((record, index) => {
    const outcome = outcomes[index]!;
    tally.add('companies', record, outcome);
    if (outcome.action !== 'failed') companies.ids.set(record.key, outcome.id);
  });
}

/** Writes the contacts, per key property, each with its company; the record ids of those written. */
async function writeContacts(
  run: RunContext,
  tally: BatchTally,
  contacts: readonly ContactRecord[],
  policies: Policies,
  companies: Companies,
): Promise<Map<ContactRecord, string | undefined>> {
  const { adapter } = run;
  const contactIds = new Map<ContactRecord, string | undefined>();
  for (const idProperty of new Set(contacts.map((record) => record.idProperty))) {
    const group = contacts.filter((record) => record.idProperty === idProperty);
    const written = await writeFound(
      run,
      'contacts',
      group.map((record) => ({
        idProperty,
        key: record.key,
        properties: record.properties,
        policyOf: record.change
          ? policies.changed
          : record.status === 'moved'
            ? policies.moved
            : policies.plain,
        updateOnly: record.updateOnly,
        keyless: record.keyless,
        ...(adapter.link === undefined &&
        record.companyKey !== undefined &&
        companies.ids.has(record.companyKey)
          ? { company: { key: record.companyKey, id: companies.ids.get(record.companyKey) } }
          : {}),
        find: {
          idProperty,
          key: record.key,
          carriedId: record.carriedId,
          readFirst: record.email === record.key && adapter.readsByKey !== false,
          lookups: contactLookups(adapter, record, companies.ids),
        },
      })),
    );
    tally.calls += written.calls;
    group.forEach((record, index) => {
      const outcome = written.outcomes[index]!;
      tally.add('contacts', record, outcome);
      if (outcome.action !== 'failed') contactIds.set(record, outcome.id);
    });
  }
  return contactIds;
}

/**
 * Links each written contact to its company: in its own write (no `link`: already done), else by the
 * adapter's `link` calls (a dry run counts them); the associations made (or planned).
 */
async function linkContacts(
  run: RunContext,
  tally: BatchTally,
  contactIds: ReadonlyMap<ContactRecord, string | undefined>,
  companies: Companies,
): Promise<number> {
  const { adapter, signal } = run;
  const links: Array<{ record: ContactRecord; from: string | undefined; to: string | undefined }> = [];
  for (const [record, from] of contactIds) {
    if (record.companyKey === undefined || companies.unheld.has(record.companyKey)) continue;
    if (!companies.ids.has(record.companyKey)) {
      tally.fail(record.events, `contacts ${record.key}: its company ${record.companyKey} was not written`);
      continue;
    }
    links.push({ record, from, to: companies.ids.get(record.companyKey) });
  }
  const { link } = adapter;
  if (link === undefined) return links.length;
  const { writeBatch } = adapter.limits;
  if (run.dryRun) {
    tally.calls += Math.ceil(links.length / writeBatch);
    return links.length;
  }
  let associations = 0;
  for (const slice of chunksOf(links, writeBatch)) {
    const chunk = slice.filter((it) => {
      if (it.from !== undefined && it.to !== undefined) return true;
      tally.fail(it.record.events, `contacts ${it.record.key}: a record id is unknown, not associated`);
      return false;
    });
    if (chunk.length === 0) continue;
    tally.calls += 1;
    const refused = await link.call(
      adapter,
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
        tally.fail(
          record.events,
          `contacts ${record.key}: association with company ${record.companyKey} refused: ${error}`,
        );
    });
  }
  return associations;
}

/**
 * Writes (or, with `dryRun`, plans) a mapped batch: the employers looked up, the companies, the contacts,
 * the links, one step after the other. Throws CrmError for trouble that is not a record's.
 */
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
  const { batch, settings } = options;
  const run: RunContext = {
    adapter: options.adapter,
    store: options.store,
    definitions: options.definitions,
    settings,
    dryRun: options.dryRun,
    signal: options.signal,
  };
  const tally = new BatchTally(batch.skipped);
  const policies = policiesOf(settings);
  const { toWrite, companies } = await lookUpEmployers(run, tally, batch);
  await writeCompanies(run, tally, toWrite, policies, companies);
  const contactIds = await writeContacts(run, tally, batch.contacts, policies, companies);
  return tally.report(await linkContacts(run, tally, contactIds, companies));
}

/**
 * One batch of events written to HubSpot, in the order the records depend on: companies, then contacts,
 * then each contact's association with its company (by the ids the upserts returned). Every step is an
 * upsert by key or an association create, so running a batch again after a crash writes the same records
 * and associations again, never twice: the outbox's at-least-once delivery is what makes it resumable.
 * An event is delivered only when all its records (and association) are written.
 */
import type { PropertyDefinition } from './check-values.js';
import { HUBSPOT_BATCH_LIMIT, type HubSpotClient } from './hubspot-client.js';
import {
  type CompanyRecord,
  type ContactRecord,
  type HubSpotKeys,
  type MappedBatch,
  MOVED_FIELDS,
  type SkippedRecord,
} from './map-records.js';
import { type FieldChange, type FieldPolicy, policyFor } from './plan-writes.js';
import { type WriteOutcome, writeRecords } from './write-records.js';

/** contact→company association types (HubSpot-defined): unlabeled, and primary for a moved contact. */
export const CONTACT_TO_COMPANY = 279;
export const CONTACT_TO_PRIMARY_COMPANY = 1;

/** How a destination writes. */
export interface SyncSettings {
  readonly keys: HubSpotKeys;
  readonly write: 'overwrite' | 'fill-empty';
  readonly fields: Readonly<Record<string, FieldPolicy>>;
}

/** One record's line of the report (and of the dry run). */
export interface RecordReport {
  readonly object: 'companies' | 'contacts';
  readonly key: string;
  readonly action: 'create' | 'update' | 'skip' | 'failed';
  readonly changes: readonly FieldChange[];
  readonly warnings: readonly string[];
  readonly reason?: string;
  readonly events: readonly number[];
}

/** What a batch came to: per record, and the events that failed (batch index → why). */
export interface SyncReport {
  readonly records: RecordReport[];
  readonly failedEvents: Map<number, string>;
  /** Associations written (or, in a dry run, that would be). */
  readonly associations: number;
  /** Write-path calls made (in a dry run: that the real run would make), property reads aside. */
  readonly calls: number;
}

function fail(failed: Map<number, string>, events: readonly number[], error: string): void {
  for (const event of events) if (!failed.has(event)) failed.set(event, error);
}

/** Writes (or, with `dryRun`, plans) a mapped batch. Throws HubSpotError for trouble that is not a record's. */
export async function syncBatch(options: {
  readonly client: HubSpotClient;
  readonly batch: MappedBatch;
  readonly settings: SyncSettings;
  readonly definitions: (
    object: 'companies' | 'contacts',
  ) => Promise<ReadonlyMap<string, PropertyDefinition> | undefined>;
  readonly dryRun: boolean;
  readonly signal: AbortSignal;
}): Promise<SyncReport> {
  const { client, batch, settings, dryRun, signal } = options;
  const records: RecordReport[] = batch.skipped.map((skip: SkippedRecord) => ({
    object: skip.object,
    key: '',
    action: 'skip',
    changes: [],
    warnings: [],
    reason: skip.reason,
    events: [skip.event],
  }));
  const failed = new Map<number, string>();
  const plain = policyFor({ write: settings.write, fields: settings.fields });
  const moved = policyFor({ write: settings.write, fields: settings.fields, overwriting: MOVED_FIELDS });
  const report = (
    object: 'companies' | 'contacts',
    record: CompanyRecord | ContactRecord,
    outcome: WriteOutcome,
  ) => {
    records.push({
      object,
      key: record.key,
      action: outcome.action,
      changes: outcome.changes,
      warnings: outcome.warnings,
      ...(outcome.error !== undefined ? { reason: outcome.error } : {}),
      events: record.events,
    });
    if (outcome.action === 'failed') fail(failed, record.events, `${object} ${record.key}: ${outcome.error}`);
  };

  const companyIds = new Map<string, string | undefined>();
  let calls = 0;
  const { outcomes: companyOutcomes, calls: companyCalls } = await writeRecords({
    client,
    object: 'companies',
    inputs: batch.companies.map((record) => ({
      idProperty: settings.keys.companyKey,
      key: record.key,
      properties: record.properties,
      policyOf: plain,
    })),
    definitions: await options.definitions('companies'),
    dryRun,
    signal,
  });
  calls += companyCalls;
  batch.companies.forEach((record, index) => {
    const outcome = companyOutcomes[index]!;
    report('companies', record, outcome);
    if (outcome.action !== 'failed') companyIds.set(record.key, outcome.id);
  });

  const contactIds = new Map<ContactRecord, string | undefined>();
  const contactDefinitions = await options.definitions('contacts');
  for (const idProperty of new Set(batch.contacts.map((record) => record.idProperty))) {
    const group = batch.contacts.filter((record) => record.idProperty === idProperty);
    const written = await writeRecords({
      client,
      object: 'contacts',
      inputs: group.map((record) => ({
        idProperty,
        key: record.key,
        properties: record.properties,
        policyOf: record.status === 'moved' ? moved : plain,
      })),
      definitions: contactDefinitions,
      dryRun,
      signal,
    });
    calls += written.calls;
    group.forEach((record, index) => {
      const outcome = written.outcomes[index]!;
      report('contacts', record, outcome);
      if (outcome.action !== 'failed') contactIds.set(record, outcome.id);
    });
  }

  const links: Array<{ record: ContactRecord; from: string | undefined; to: string | undefined }> = [];
  for (const [record, from] of contactIds) {
    if (record.companyKey === undefined) continue;
    if (!companyIds.has(record.companyKey)) {
      fail(failed, record.events, `contacts ${record.key}: its company ${record.companyKey} was not written`);
      continue;
    }
    links.push({ record, from, to: companyIds.get(record.companyKey) });
  }
  if (dryRun) {
    calls += Math.ceil(links.length / HUBSPOT_BATCH_LIMIT);
    return { records, failedEvents: failed, associations: links.length, calls };
  }
  let associations = 0;
  for (let at = 0; at < links.length; at += HUBSPOT_BATCH_LIMIT) {
    const chunk = links.slice(at, at + HUBSPOT_BATCH_LIMIT).filter((link) => {
      if (link.from !== undefined && link.to !== undefined) return true;
      fail(failed, link.record.events, `contacts ${link.record.key}: a record id is unknown, not associated`);
      return false;
    });
    if (chunk.length === 0) continue;
    calls += 1;
    const answer = await client.request(
      'POST',
      '/crm/v4/associations/contacts/companies/batch/create',
      {
        inputs: chunk.map(({ record, from, to }) => ({
          from: { id: from },
          to: { id: to },
          types: [
            { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: CONTACT_TO_COMPANY },
            ...(record.status === 'moved'
              ? [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: CONTACT_TO_PRIMARY_COMPANY }]
              : []),
          ],
        })),
      },
      signal,
    );
    const body = answer.body as {
      results?: ReadonlyArray<{ fromObjectId?: string | number; toObjectId?: string | number }>;
      errors?: ReadonlyArray<{ message?: string }>;
    } | null;
    const done = new Set((body?.results ?? []).map((r) => `${r.fromObjectId}>${r.toObjectId}`));
    for (const { record, from, to } of chunk) {
      if (done.has(`${from}>${to}`)) associations += 1;
      else
        fail(
          failed,
          record.events,
          `contacts ${record.key}: association with company ${record.companyKey} refused: ${body?.errors?.[0]?.message ?? 'not returned'}`,
        );
    }
  }
  return { records, failedEvents: failed, associations, calls };
}

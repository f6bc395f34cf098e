/**
 * Writing records with sObject Collections (shared/docs/salesforce-api.md §1.2, §2): records without a known
 * Id are upserted by their external id (`PATCH composite/sobjects/{Object}/{Key}`), records carrying a
 * Salesforce Id are updated by it (`PATCH composite/sobjects`), 200 a call, `allOrNone: false`, answers read
 * in order. A Contact names its Account by the Account's external id in the same write. A record refused with
 * UNABLE_TO_LOCK_ROW alone is answered `retry`: it is not sent again within the attempt (no timer waits inside
 * it), its batch goes back to the destination's retry schedule, whose backoff the lane's clock keeps, and the
 * keyed writes of the records already saved converge when it is sent again.
 */
import { type CollectionResult, classifyRecordErrors, collectionResultsSchema } from './salesforce-answer.js';
import type { SalesforceClient } from './salesforce-client.js';

/** Records per collections call (Salesforce's limit). */
export const COLLECTION_LIMIT = 200;

/** One record to write. */
export interface RecordWrite {
  /** The normalized external id. */
  readonly key: string;
  /** A Salesforce Id the record is known by (carried, adopted, read): it is updated by it, never created. */
  readonly id: string | undefined;
  /** Fitted values; never empty ones (an empty value would clear the field). */
  readonly fields: Readonly<Record<string, string | number>>;
  /** A Contact's Account, by the Account's external id. */
  readonly parent?:
    | { readonly relationship: string; readonly keyField: string; readonly key: string }
    | undefined;
}

/** What became of one record. */
export type RecordOutcome =
  | { readonly ok: true; readonly id: string; readonly created: boolean }
  /** `retry`: only a lock stood in the way: the event goes back to the lane's schedule. */
  | {
      readonly ok: false;
      readonly retry: boolean;
      readonly error: string;
      readonly duplicateOf: readonly string[];
    };

/** What one call of `writeCollections` is. */
export interface CollectionsWrite {
  readonly object: 'Account' | 'Contact' | 'Lead';
  readonly keyField: string;
  readonly records: readonly RecordWrite[];
}

function body(object: string, keyField: string, record: RecordWrite): Record<string, unknown> {
  const out: Record<string, unknown> = { attributes: { type: object }, ...record.fields };
  // The key field is never sent as a data column too (segment-docs#6831), except on an update by Id,
  // where it stamps the key on the record known by its Id.
  delete out.Id;
  if (record.id !== undefined) out.Id = record.id;
  out[keyField] = record.key;
  if (record.parent !== undefined)
    out[record.parent.relationship] = { [record.parent.keyField]: record.parent.key };
  return out;
}

async function sendChunk(
  client: SalesforceClient,
  write: CollectionsWrite,
  byId: boolean,
  records: readonly RecordWrite[],
  signal: AbortSignal,
): Promise<CollectionResult[]> {
  const results = await client.json(
    collectionResultsSchema,
    {
      method: 'PATCH',
      path: byId ? 'composite/sobjects' : `composite/sobjects/${write.object}/${write.keyField}`,
      json: {
        allOrNone: false,
        records: records.map((record) => body(write.object, write.keyField, record)),
      },
    },
    signal,
  );
  if (results.length !== records.length) {
    throw new TypeError(`Salesforce answered ${results.length} results for ${records.length} records`);
  }
  return results;
}

/** What one record's result in a collections answer comes to. */
export function outcomeOf(result: CollectionResult): RecordOutcome {
  if (result.success && result.id) return { ok: true, id: result.id, created: result.created === true };
  const trouble = classifyRecordErrors(result.errors);
  return {
    ok: false,
    retry: trouble.kind === 'retry',
    error: trouble.error,
    duplicateOf: trouble.kind === 'fail' ? trouble.duplicateOf : [],
  };
}

/**
 * Writes `records` of one object (keys unique; the caller dedupes) in calls of 200, and answers one outcome
 * per record, in order. Throws SalesforceError for trouble that is not one record's (the whole call).
 */
export async function writeCollections(
  client: SalesforceClient,
  write: CollectionsWrite,
  signal: AbortSignal,
): Promise<RecordOutcome[]> {
  const outcomes: RecordOutcome[] = new Array(write.records.length);
  for (const byId of [false, true]) {
    const pending = write.records
      .map((record, index) => ({ record, index }))
      .filter(({ record }) => (record.id !== undefined) === byId);
    for (let start = 0; start < pending.length; start += COLLECTION_LIMIT) {
      const chunk = pending.slice(start, start + COLLECTION_LIMIT);
      const results = await sendChunk(
        client,
        write,
        byId,
        chunk.map((item) => item.record),
        signal,
      );
      results.forEach((result, i) => {
        outcomes[chunk[i]!.index] = outcomeOf(result);
      });
    }
  }
  return outcomes;
}

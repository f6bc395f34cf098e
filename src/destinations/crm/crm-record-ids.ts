/**
 * The record ids a destination's CRM holds, by key (`crm_record_ids`, migration 016): what adoption found
 * and what the destination wrote, so that a record found once is never searched for again. Shared by every
 * replica; a later write of the same key replaces the id (a merge in the CRM leaves the survivor's).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { whenUnlocked } from '../when-unlocked.js';
import type { CrmObject } from './crm-adapter.js';
import type { RecordIdStore } from './find-existing.js';
import { chunksOf } from './in-chunks.js';

/** Keys per lookup (well under SQLite's bound parameters). */
const LOOKUP_CHUNK = 500;

/** The ids recorded for `keys` of `object`: key → record id, for those known. */
async function lookUpRecordIds(
  db: Kysely<Database>,
  destination: string,
  object: CrmObject,
  keys: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const chunk of chunksOf(keys, LOOKUP_CHUNK)) {
    const rows = await db
      .selectFrom('crm_record_ids')
      .select(['key', 'record_id'])
      .where('destination', '=', destination)
      .where('object', '=', object)
      .where('key', 'in', chunk)
      .execute();
    for (const row of rows) found.set(row.key, row.record_id);
  }
  return found;
}

/** Records `ids` (key → record id) of `object`, replacing what was recorded for those keys. */
async function recordRecordIds(
  db: Kysely<Database>,
  destination: string,
  object: CrmObject,
  ids: ReadonlyMap<string, string>,
  nowIso: string,
): Promise<void> {
  if (ids.size === 0) return;
  const rows = [...ids].map(([key, record_id]) => ({
    destination,
    object,
    key,
    record_id,
    recorded_at: nowIso,
  }));
  await whenUnlocked(async () => {
    for (const chunk of chunksOf(rows, LOOKUP_CHUNK / 5)) {
      await db
        .insertInto('crm_record_ids')
        .values(chunk)
        .onConflict((oc) =>
          oc.columns(['destination', 'object', 'key']).doUpdateSet((eb) => ({
            record_id: eb.ref('excluded.record_id'),
            recorded_at: eb.ref('excluded.recorded_at'),
          })),
        )
        .execute();
    }
  });
}

/** The record-id store of `destination`: its rows of `crm_record_ids`, recorded at `now`. */
export function createRecordIdStore(
  db: Kysely<Database>,
  destination: string,
  now: () => number,
): RecordIdStore {
  return {
    lookUp: (object, keys) => lookUpRecordIds(db, destination, object, keys),
    record: (object, ids) => recordRecordIds(db, destination, object, ids, new Date(now()).toISOString()),
  };
}

/**
 * The `about` texts of a job's persons, stored once per job in person_texts (migration 008): a JSON array by
 * position, null where a person has none, compressed with the envelope codec. A persons row would carry
 * each text uncompressed, and they are the largest free text of a page; exports read them per job.
 */
import type { Kysely } from 'kysely';
import { chunkForParameters } from './chunk-for-parameters.js';
import type { Database } from './database.js';
import { decodeEnvelope, encodeEnvelope } from './envelope-codec.js';

/** One person_texts row as derived (bytes as a plain Uint8Array: it may cross threads). */
export interface PersonTextsRow {
  readonly job_id: string;
  readonly abouts_z: Uint8Array;
}

/** The row for `abouts` (by position), or none when no person has a text. */
export function personTextsRow(jobId: string, abouts: readonly (string | null)[]): PersonTextsRow[] {
  if (!abouts.some((about) => about !== null)) return [];
  const bytes = encodeEnvelope(JSON.stringify(abouts));
  return [{ job_id: jobId, abouts_z: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) }];
}

/** The texts a stored row holds, by position (an empty list for bytes that are not such a row). */
export function decodePersonTexts(stored: Uint8Array): (string | null)[] {
  try {
    const value: unknown = JSON.parse(decodeEnvelope(stored));
    return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : null)) : [];
  } catch {
    return [];
  }
}

/** `bytes` as a Buffer, without copying (what both drivers bind as a blob). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Erases the texts of the persons at `positions` of each job (a purge): rewrites each job's row without
 * them, or deletes it when no text is left. In the open transaction `trx`.
 */
export async function erasePersonTexts(
  trx: Kysely<Database>,
  positions: ReadonlyMap<string, readonly number[]>,
): Promise<void> {
  for (const ids of chunkForParameters([...positions.keys()], 1, 200)) {
    const rows = await trx.selectFrom('person_texts').selectAll().where('job_id', 'in', ids).execute();
    for (const row of rows) {
      const abouts = decodePersonTexts(row.abouts_z);
      for (const position of positions.get(row.job_id) ?? [])
        if (position < abouts.length) abouts[position] = null;
      const [kept] = personTextsRow(row.job_id, abouts);
      if (kept === undefined) await trx.deleteFrom('person_texts').where('job_id', '=', row.job_id).execute();
      else
        await trx
          .updateTable('person_texts')
          .set({ abouts_z: asBuffer(kept.abouts_z) })
          .where('job_id', '=', row.job_id)
          .execute();
    }
  }
}

/**
 * Keeps the quarantine's bodies under a total byte budget (issue 15): past it, the oldest bodies are
 * emptied first; their rows (reason, claimed job_id, when) stay, and say that the body was dropped. The
 * budget counts stored bytes: the bodies as compressed in quarantine.body_z, not their received size.
 */
import { sql } from 'kysely';
import { chunkForParameters } from '../chunk-for-parameters.js';
import type { HooksyncDatabase } from '../open-database.js';

/** What a trim did. */
export interface TrimQuarantineReport {
  /** Bodies emptied by this trim. */
  droppedBodies: number;
  /** Stored (compressed) body bytes the quarantine holds afterwards. */
  keptBytes: number;
}

/** Marks appended to the detail of a row whose body was dropped. */
export const BODY_DROPPED_NOTE = '[body dropped: quarantine byte budget]';

/** Empties the oldest quarantined bodies until the rest fit in `budgetBytes`. */
export async function trimQuarantine(
  database: Pick<HooksyncDatabase, 'db' | 'dialect'>,
  budgetBytes: number,
): Promise<TrimQuarantineReport> {
  const { db, dialect } = database;
  const length = dialect === 'postgres' ? sql<number>`octet_length(body_z)` : sql<number>`length(body_z)`;
  const rows = await db
    .selectFrom('quarantine')
    .select(['id', length.as('bytes')])
    .where(length, '>', 0)
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  let kept = 0;
  const drop: string[] = [];
  for (const row of rows) {
    const bytes = Number(row.bytes);
    if (drop.length === 0 && kept + bytes <= budgetBytes) kept += bytes;
    else drop.push(row.id);
  }
  const nowDetail = sql<string>`coalesce(detail || ' ', '') || ${BODY_DROPPED_NOTE}`;
  for (const ids of chunkForParameters(drop, 1)) {
    await db
      .updateTable('quarantine')
      .set({ body_z: Buffer.alloc(0), body_bytes: 0, detail: nowDetail })
      .where('id', 'in', ids)
      .execute();
  }
  return { droppedBodies: drop.length, keptBytes: kept };
}

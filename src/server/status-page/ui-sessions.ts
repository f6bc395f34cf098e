/**
 * Server-side status page sessions (table ui_sessions, migration 005): a sign-in adds a row, a sign-out
 * deletes it, and a cookie counts only while its row exists and has not expired.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';

/** Records a new session and deletes the expired ones (so the table stays as small as the live sessions). */
export async function createUiSession(
  db: Kysely<Database>,
  sessionId: string,
  now: Date,
  expiresAt: Date,
): Promise<void> {
  await db.deleteFrom('ui_sessions').where('expires_at', '<=', now.toISOString()).execute();
  await db
    .insertInto('ui_sessions')
    .values({ id: sessionId, created_at: now.toISOString(), expires_at: expiresAt.toISOString() })
    .execute();
}

/** True when session `sessionId` exists and has not expired at `now`. */
export async function isLiveUiSession(db: Kysely<Database>, sessionId: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('ui_sessions')
    .select('id')
    .where('id', '=', sessionId)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
  return row !== undefined;
}

/** Ends session `sessionId` (nothing happens when it does not exist). */
export async function endUiSession(db: Kysely<Database>, sessionId: string): Promise<void> {
  await db.deleteFrom('ui_sessions').where('id', '=', sessionId).execute();
}

/**
 * What an alert destination remembers in the database (migration 026): the messages posted for each
 * event to each route target (`alert_sends`), so that a retried event posts only to the targets still
 * owed, and the changes digest routes gathered (`alert_digest_items`), each taken by exactly one digest.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';

/** The targets (`<route>:<target>`) already posted for `eventId`. */
export async function sentTargets(
  db: Kysely<Database>,
  destination: string,
  eventId: string,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('alert_sends')
    .select('target')
    .where('destination', '=', destination)
    .where('event_id', '=', eventId)
    .execute();
  return new Set(rows.map((row) => row.target));
}

/** Records that `target` got its message for `eventId`. */
export async function recordSent(
  db: Kysely<Database>,
  destination: string,
  eventId: string,
  target: string,
  nowIso: string,
): Promise<void> {
  await db
    .insertInto('alert_sends')
    .values({ destination, event_id: eventId, target, sent_at: nowIso })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Forgets what was posted for events being replayed, so that they post again. */
export async function forgetSent(
  db: Kysely<Database>,
  destination: string,
  eventIds: readonly string[],
): Promise<void> {
  if (eventIds.length === 0) return;
  await db
    .deleteFrom('alert_sends')
    .where('destination', '=', destination)
    .where('event_id', 'in', [...eventIds])
    .execute();
}

/** Gathers a change into a digest route's next digest for `target` (once: a repeat is ignored). */
export async function gatherDigestItem(
  db: Kysely<Database>,
  item: {
    readonly destination: string;
    readonly route: number;
    readonly target: string;
    readonly changeId: string;
    readonly line: string;
  },
  nowIso: string,
): Promise<void> {
  await db
    .insertInto('alert_digest_items')
    .values({
      destination: item.destination,
      route: item.route,
      target: item.target,
      change_id: item.changeId,
      line: item.line,
      gathered_at: nowIso,
      digest_id: null,
      posted_at: null,
    })
    .onConflict((oc) => oc.columns(['destination', 'route', 'target', 'change_id']).doNothing())
    .execute();
}

/** A digest's items: taken by one digest, not yet posted. */
export interface DigestItem {
  readonly id: string;
  readonly target: string;
  readonly line: string;
  readonly digestId: string;
}

/**
 * Takes every waiting item of a route for digest `digestId` (items a digest took earlier and never posted,
 * after a crash, are taken again with them), and returns what is taken but not posted, oldest first.
 */
export async function takeDigestItems(
  db: Kysely<Database>,
  destination: string,
  route: number,
  digestId: string,
): Promise<DigestItem[]> {
  await db
    .updateTable('alert_digest_items')
    .set({ digest_id: digestId })
    .where('destination', '=', destination)
    .where('route', '=', route)
    .where('posted_at', 'is', null)
    .execute();
  const rows = await db
    .selectFrom('alert_digest_items')
    .select(['id', 'target', 'line', 'digest_id'])
    .where('destination', '=', destination)
    .where('route', '=', route)
    .where('digest_id', '=', digestId)
    .where('posted_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: String(row.id),
    target: row.target,
    line: row.line,
    digestId: row.digest_id ?? digestId,
  }));
}

/** Marks items as posted. */
export async function markDigestPosted(
  db: Kysely<Database>,
  ids: readonly string[],
  nowIso: string,
): Promise<void> {
  for (let start = 0; start < ids.length; start += 500) {
    await db
      .updateTable('alert_digest_items')
      .set({ posted_at: nowIso })
      .where(
        'id',
        'in',
        ids.slice(start, start + 500).map((id) => Number(id)),
      )
      .execute();
  }
}

/** Changes waiting for a digest of `destination` (not yet posted). */
export async function pendingDigestItems(db: Kysely<Database>, destination: string): Promise<number> {
  const row = await db
    .selectFrom('alert_digest_items')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('destination', '=', destination)
    .where('posted_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * Successor searches left claimed by a run that stopped between the claim and the answer (a kill -9): a
 * search is sent once per departure, so such a play is never sent again; taken up by the next process to
 * hold the watch, it is reported failed (abandoned), in `watches changes` and on the status page, instead of
 * staying claimed unseen.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../storage/database.js';
import type { WatchDefinition } from '../load-watches.js';

/** What an abandoned search's play says: it is not searched again. */
export const ABANDONED_SEARCH =
  'abandoned: the process that made the search stopped before its answer was recorded; not searched again';

/**
 * Successor searches claimed by a run that is gone (a kill -9 between the claim and the answer): failed,
 * said why, never searched again (one search per departure). Called when a process takes up the watch (it
 * holds the watch's lease, so the dead holder's claim has lapsed); returns how many.
 */
export async function abandonSuccessorSearches(
  db: Kysely<Database>,
  watch: string,
  nowIso: string,
): Promise<number> {
  const result = await db
    .updateTable('watch_plays')
    .set({ state: 'failed', detail: ABANDONED_SEARCH, updated_at: nowIso })
    .where('watch', '=', watch)
    .where('play', '=', 'successor')
    .where('state', '=', 'claimed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** {@link abandonSuccessorSearches} for a watch with a successor play, with a warning when it found any. */
export async function reportAbandonedSearches(
  db: Kysely<Database>,
  watch: WatchDefinition,
  nowIso: string,
  logger: Logger,
): Promise<void> {
  if (watch.plays.successor === undefined) return;
  const abandoned = await abandonSuccessorSearches(db, watch.name, nowIso);
  if (abandoned > 0) {
    logger.warn(
      { watch: watch.name, abandoned },
      'successor searches abandoned by a stopped run; not searched again',
    );
  }
}

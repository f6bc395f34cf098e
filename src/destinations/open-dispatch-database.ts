/**
 * The dispatcher's own connection. On SQLite it commits with synchronous = NORMAL: its writes (claims,
 * outcomes) are not acknowledgements, and the last of them lost to a power cut only means a claim that
 * lapses or an event sent once more (at least once), never an event lost: the events themselves were
 * committed, with the job, by the store at FULL. Without an fsync per write, a busy disk does not set the
 * pace of delivery. It never waits for a lock either (see when-unlocked.ts). On Postgres (a pool) and in memory (one connection only), the given database is used.
 */
import { type HooksyncDatabase, isPostgresUrl, openDatabase } from '../storage/open-database.js';

/** A database for the dispatcher, and whether the caller must close it. */
export async function openDispatchDatabase(
  url: string,
  shared: HooksyncDatabase,
): Promise<{ database: HooksyncDatabase; owned: boolean }> {
  if (isPostgresUrl(url) || url === ':memory:') return { database: shared, owned: false };
  // busy_timeout 0: a locked database fails the write at once, to be retried on a timer (when-unlocked.ts),
  // instead of sleeping the thread that reads callbacks.
  return { database: await openDatabase(url, { synchronous: 'NORMAL', busyTimeoutMs: 0 }), owned: true };
}

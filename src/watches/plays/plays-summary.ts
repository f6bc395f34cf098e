/**
 * What a watch's plays stand at, for `watches run --dry-run`, `watches list` and the status page: per play,
 * how many are waiting (they start at the next run), running, done and failed, and what a successor
 * search has cost so far (its price is the service's, known once a search has answered).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { WatchDefinition } from '../load-watches.js';
import { playCounts } from './play-store.js';

/** One play's counts. */
export interface PlaySummary {
  readonly play: 'successor' | 'task';
  readonly on: readonly string[];
  /** The CRM destination of a task play. */
  readonly destination?: string | undefined;
  /** Waiting to be carried out: what the next run would start. */
  readonly pending: number;
  readonly running: number;
  readonly done: number;
  readonly failed: number;
  /** Successor: persons asked for per search (max_per_change + 1). */
  readonly persons_per_search?: number | undefined;
  /** Successor: the most one search has cost so far, in USD; null before any answered with a price. */
  readonly usd_per_search_seen?: number | null | undefined;
}

/** The plays of `watch` with their counts (an empty list when it has none). */
export async function summarizePlays(db: Kysely<Database>, watch: WatchDefinition): Promise<PlaySummary[]> {
  const { successor, task } = watch.plays;
  if (successor === undefined && task === undefined) return [];
  const counts = await playCounts(db, watch.name);
  const count = (play: string, states: readonly string[]) =>
    counts
      .filter((row) => row.play === play && states.includes(row.state))
      .reduce((sum, row) => sum + row.count, 0);
  const out: PlaySummary[] = [];
  if (successor !== undefined) {
    const seen = await db
      .selectFrom('watch_plays')
      .select(({ fn }) => fn.max('usd_micros').as('max'))
      .where('watch', '=', watch.name)
      .where('play', '=', 'successor')
      .where('state', '=', 'done')
      .executeTakeFirst();
    const max = seen?.max === null || seen?.max === undefined ? 0 : Number(seen.max);
    out.push({
      play: 'successor',
      on: successor.on,
      pending: count('successor', ['pending']),
      running: count('successor', ['claimed', 'running']),
      done: count('successor', ['done']),
      failed: count('successor', ['failed']),
      persons_per_search: successor.maxPerChange + 1,
      usd_per_search_seen: max > 0 ? max / 1e6 : null,
    });
  }
  if (task !== undefined) {
    out.push({
      play: 'task',
      on: task.on,
      destination: task.destination,
      pending: count('task', ['pending', 'claimed']),
      running: 0,
      done: count('task', ['done']),
      failed: count('task', ['failed']),
    });
  }
  return out;
}

/** One line per play, for the CLI. */
export function describePlays(summaries: readonly PlaySummary[]): string[] {
  return summaries.map((p) =>
    p.play === 'successor'
      ? `successor (on ${p.on.join(', ')}): ${p.pending} searches would start, ${p.persons_per_search} persons each at most, ${p.usd_per_search_seen == null ? 'price not seen yet (a search reserves what is left of the budget)' : `up to $${p.usd_per_search_seen} each as seen`}; ${p.running} running, ${p.done} done, ${p.failed} failed`
      : `task to "${p.destination}" (on ${p.on.join(', ')}): ${p.pending} tasks would be created; ${p.done} created, ${p.failed} failed`,
  );
}

/**
 * An alert destination's running totals in destination_counters (all replicas' work), shown by
 * `destinations list`, the status page and /metrics: `messages_sent`, `messages_failed`, `rate_limited`,
 * and the gauge `digests_pending` (changes waiting for a digest).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { recordCounters } from '../destination-counters.js';
import { whenUnlocked } from '../when-unlocked.js';
import { pendingDigestItems } from './alert-ledger.js';

/** The counters an alert destination adds to. */
export type AlertCounter = 'messages_sent' | 'messages_failed' | 'rate_limited';

/** Counts in memory, written by `flush`. */
export class AlertCounters {
  readonly #db: Kysely<Database>;
  readonly #destination: string;
  readonly #now: () => number;
  #held: Partial<Record<AlertCounter, number>> = {};

  constructor(db: Kysely<Database>, destination: string, now: () => number) {
    this.#db = db;
    this.#destination = destination;
    this.#now = now;
  }

  add(counter: AlertCounter, by = 1): void {
    this.#held[counter] = (this.#held[counter] ?? 0) + by;
  }

  /** Writes what was counted, and the digests' pending gauge when `digests` (never throws). */
  async flush(digests: boolean): Promise<void> {
    const increments = this.#held;
    this.#held = {};
    try {
      const gauges = digests
        ? { digests_pending: await pendingDigestItems(this.#db, this.#destination) }
        : undefined;
      await whenUnlocked(() =>
        recordCounters(
          this.#db,
          this.#destination,
          { increments, ...(gauges !== undefined ? { gauges } : {}) },
          new Date(this.#now()).toISOString(),
        ),
      );
    } catch {
      // Counters are a view: losing one write loses a few counts, never a message.
    }
  }
}

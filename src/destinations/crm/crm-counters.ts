/**
 * A CRM destination's running totals since they were last recorded: the calls its client made, the rate
 * limits it met, the daily allowance the CRM last reported, and what became of its records. One owner: the
 * client only reports through `CallCounter`; the destination drains them into `destination_counters`
 * (shared by every replica) after each batch, dry run, setup or check.
 */
import { recordCounters } from '../destination-counters.js';
import type { DestinationDeps } from '../destination-type.js';
import { whenUnlocked } from '../when-unlocked.js';

/** What a CRM client reports about its calls. */
export interface CallCounter {
  /** One call sent. */
  call(): void;
  /** One answer refused under a rate-limit policy (`TEN_SECONDLY_ROLLING`, `DAILY`, ...). */
  rateLimited(policy: string): void;
  /** The calls left in the CRM's daily allowance, when an answer says. */
  dailyRemaining(left: number): void;
}

/** A counter that counts nothing: a watch's reads of a CRM are not its destination's calls. */
export const UNCOUNTED: CallCounter = Object.freeze({ call() {}, rateLimited() {}, dailyRemaining() {} });

/**
 * The rate-limit policies counted by name (`rate_limited_<policy>`): the ones the CRMs document. Any other
 * name a CRM sends counts as `UNKNOWN`, so that no answer can add a counter row or a metric series.
 */
export const COUNTED_POLICIES: ReadonlySet<string> = new Set([
  'TEN_SECONDLY_ROLLING',
  'SECONDLY',
  'DAILY',
  'BURST',
  'DAILY_SHARE',
  'TotalRequests',
  'max_share',
  'UNKNOWN',
]);

/** What each record outcome adds to (after its object: companies_created, contacts_failed, ...). */
const RECORD_COUNTERS = { create: 'created', update: 'updated', skip: 'skipped', failed: 'failed' } as const;

/** A record outcome, as counted. */
export interface CountedRecord {
  readonly object: string;
  readonly action: keyof typeof RECORD_COUNTERS;
  /** A record found by search and made hooksync's: counted `adopted`, whatever its write. */
  readonly adopted?: boolean | undefined;
}

/** The totals of one destination, drained by `flush`. */
export class CrmCounters implements CallCounter {
  readonly #name: string;
  readonly #deps: DestinationDeps;
  #calls = 0;
  #rateLimited: Record<string, number> = {};
  #dailyRemaining: number | undefined;
  #own: Record<string, number> = {};

  constructor(name: string, deps: DestinationDeps) {
    this.#name = name;
    this.#deps = deps;
  }

  call(): void {
    this.#calls += 1;
  }

  rateLimited(policy: string): void {
    const counted = COUNTED_POLICIES.has(policy) ? policy : 'UNKNOWN';
    this.#rateLimited[counted] = (this.#rateLimited[counted] ?? 0) + 1;
  }

  dailyRemaining(left: number): void {
    this.#dailyRemaining = left;
  }

  /** Adds to a total of the CRM's own (Pipedrive's `tokens_spent`). */
  add(counter: string, count: number): void {
    this.#own[counter] = (this.#own[counter] ?? 0) + count;
  }

  /** Records the totals so far and `records`' outcomes, then starts again from zero. Never throws. */
  async flush(records: readonly CountedRecord[] = []): Promise<void> {
    const increments: Record<string, number> = { api_calls: this.#calls, ...this.#own };
    for (const [policy, count] of Object.entries(this.#rateLimited))
      increments[`rate_limited_${policy.toLowerCase()}`] = count;
    for (const record of records) {
      const outcome =
        record.adopted === true && record.action !== 'failed' ? 'adopted' : RECORD_COUNTERS[record.action];
      const name = `${record.object}_${outcome}`;
      increments[name] = (increments[name] ?? 0) + 1;
    }
    const gauges: Record<string, number> =
      this.#dailyRemaining === undefined ? {} : { daily_remaining: this.#dailyRemaining };
    this.#calls = 0;
    this.#rateLimited = {};
    this.#own = {};
    this.#dailyRemaining = undefined;
    const { database, logger, now } = this.#deps;
    try {
      await whenUnlocked(() =>
        recordCounters(database.db, this.#name, { increments, gauges }, new Date(now()).toISOString()),
      );
    } catch (error) {
      logger.warn({ destination: this.#name, err: error }, 'could not record the CRM counters');
    }
  }
}

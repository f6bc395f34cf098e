/**
 * The destination's share of Pipedrive's daily token budget (§5): the budget every answer's
 * `x-daily-ratelimit-token-*` headers report is company-wide (every app and user spends it), so the
 * destination holds back a call that would leave less than `1 - share` of the day's limit to the others, and waits
 * for the reset (server midnight, probed hourly since the server's time zone is not told). Before the first
 * answer of the day nothing is known, and nothing is held back.
 */
import { CrmError } from '../../errors.js';
import { DAILY_PROBE_MS } from './pipedrive-answer.js';

/** What the last answer reported. */
export class DailyBudget {
  #limit: number | undefined;
  #remaining: number | undefined;
  #at = 0;

  constructor(
    private readonly share: number,
    private readonly now: () => number,
  ) {}

  /** Records what an answer's headers said. */
  report(budget: { limit: number; remaining: number }): void {
    this.#limit = budget.limit;
    this.#remaining = budget.remaining;
    this.#at = this.now();
  }

  /** The tokens left today as last reported. */
  get remaining(): number | undefined {
    return this.#remaining;
  }

  /**
   * Throws a `wait` CrmError when a call costing `tokens` would spend past the share; forgets a report
   * older than a probe.
   */
  check(tokens: number): void {
    if (this.#limit === undefined || this.#remaining === undefined) return;
    if (this.now() - this.#at >= DAILY_PROBE_MS) {
      this.#limit = undefined;
      this.#remaining = undefined;
      return;
    }
    const floor = this.#limit * (1 - this.share);
    if (this.#remaining - tokens >= floor) return;
    throw new CrmError(null, {
      kind: 'wait',
      policy: 'DAILY_SHARE',
      error: `Pipedrive: the destination's share of the day's tokens is spent (${this.#remaining} of ${this.#limit} left, daily_token_share ${this.share}); waiting for the reset`,
      waitMs: DAILY_PROBE_MS,
    });
  }
}
